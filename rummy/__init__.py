"""Persian Rummy for the terminal: engine, protocol, server and client."""

__version__ = "0.1.0"
