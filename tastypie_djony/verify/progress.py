"""A progress bar on stderr, without dependencies (djony_verify; the example uses it too).

On a terminal the bar is redrawn in place (at most ten times a second); when
stderr is a file or a pipe (CI logs) only the finished line is written.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``label [#####.....]  50%  500/1000`` for ``total`` units of work."""

    def __init__(
        self, label: str, total: int, stream: TextIO | None = None, width: int = 30
    ) -> None:
        self.label = label
        self.total = max(total, 0)
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.done = 0
        self.started = time.monotonic()
        self._drawn = 0.0
        self._interactive = bool(getattr(self.stream, "isatty", lambda: False)())
        self._closed = False
        self._draw(force=True)

    def advance(self, units: int = 1) -> None:
        self.update(self.done + units)

    def update(self, done: int, suffix: str = "") -> None:
        self.done = min(done, self.total) if self.total else done
        self._draw(suffix=suffix)

    def close(self, suffix: str = "") -> None:
        if self._closed:
            return
        self._closed = True
        elapsed = time.monotonic() - self.started
        line = self._line(suffix or f"{elapsed:.1f} s")
        if self._interactive:
            self.stream.write("\r" + line + "\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def _line(self, suffix: str = "") -> str:
        fraction = (self.done / self.total) if self.total else 1.0
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "." * (self.width - filled)
        text = f"{self.label} [{bar}] {fraction:4.0%}  {self.done}/{self.total}"
        return f"{text}  {suffix}" if suffix else text

    def _draw(self, force: bool = False, suffix: str = "") -> None:
        if not self._interactive:
            return
        now = time.monotonic()
        if force or now - self._drawn >= 0.1:
            self._drawn = now
            self.stream.write("\r" + self._line(suffix) + "\x1b[K")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
