"""A communicator for the bench programs' unit tests that logs the collective calls named."""

from __future__ import annotations

from typing import Any


class Recording:
    """Passes every call on to `comm`; those named in `names` are logged to `log` first."""

    def __init__(self, comm: Any, log: list[str], names: tuple[str, ...]) -> None:
        self._comm, self._log, self._names = comm, log, names

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._comm, name)
        if name not in self._names:
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            self._log.append(name)
            return attr(*args, **kwargs)
        return call
