"""A TCP relay between a client and a server that can go silent, as a bad network
does: ``stall()`` holds every byte the server sends on the connections open now
(what the client sends still arrives), so the client hears nothing while its requests
are carried out; connections made later flow. Loopback only."""

from __future__ import annotations

import asyncio


class Relay:
    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self.accepted = 0  # connections the relay took
        self._server: asyncio.Server | None = None
        self._stalled: list[asyncio.Event] = []  # per connection: set while it flows
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> Relay:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def stall(self) -> None:
        for flowing in self._stalled:
            flowing.clear()

    async def close(self) -> None:
        for writer in self._writers:
            writer.transport.abort()
        if self._server is not None:
            self._server.close()

    async def _relay(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.accepted += 1
        server_r, server_w = await asyncio.open_connection(*self.target)
        self._writers += [client_w, server_w]
        flowing = asyncio.Event()
        flowing.set()
        self._stalled.append(flowing)
        always = asyncio.Event()
        always.set()

        async def up() -> None:
            await self._pump(client_r, server_w, always)
            flowing.set()  # the client is gone: what was held goes nowhere, and the pump ends

        await asyncio.gather(up(), self._pump(server_r, client_w, flowing))

    @staticmethod
    async def _pump(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter, flowing: asyncio.Event
    ) -> None:
        try:
            while data := await reader.read(65536):
                await flowing.wait()
                writer.write(data)
                await writer.drain()
        except (OSError, ConnectionError):
            pass
        writer.transport.abort()
