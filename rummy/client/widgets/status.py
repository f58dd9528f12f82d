"""The banner that says the connection is lost and being restored."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class ConnectionBanner(Static):
    """Hidden while connected; otherwise one line saying what is going on. The lobby
    and the table screens have one each; the app's ``connection_status`` updates them
    all, and a banner mounted later reads it."""

    DEFAULT_CSS = """
    ConnectionBanner {
        dock: top;
        height: 1;
        width: 100%;
        display: none;
        background: $error;
        color: $text;
        text-style: bold;
    }
    ConnectionBanner.-shown { display: block; }
    """

    def on_mount(self) -> None:
        status = getattr(self.app, "connection_status", "")
        self.show_status(status)

    def show_status(self, status: str) -> None:
        """``status`` empty: connected (hidden); otherwise the sentence to show."""
        self.set_class(bool(status), "-shown")
        self.update(Content(status))
