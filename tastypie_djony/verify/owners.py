"""How much of a resource's time is the project's own code, sampled.

Switching the base class makes Tastypie's work and the ORM's faster; the project's own
code in the resource (its ``dehydrate_*`` hooks, authorization classes,
``get_object_list``, model methods and managers) runs the same on either base, and so
do the queries that code builds and runs.  Where that code takes most of a request, no
base class makes the request much faster: this module measures that share, so that
``djony_verify`` can say so instead of leaving a small speed-up unexplained.  (The
project's middleware is outside the resource's view, in the time ``djony_verify`` times
outside the resources, :mod:`tastypie_djony.verify.timing`: it is not counted here.)

After the timed rounds, each resource's timed requests are sent again on the
DjonyResource side while a timer (``SIGALRM``, every :data:`SAMPLE_SECONDS` of wall-clock
time) interrupts the sending thread, which looks at its own stack: each sample weighs the
time since the one before, so the sample that comes when a long call returns (a query the
database took milliseconds to answer, a C sort) counts that call's time for the frame
that made it.  (A thread looking at another thread's stack, as this module did first,
can crash CPython 3.11 while that thread's frames change: python/cpython#111363.)  The
timer needs the main thread, ``signal.setitimer`` (not on Windows) and ``SIGALRM`` not
in use (pytest-timeout's signal method, a project's own alarm): otherwise no share is
measured.  A sample belongs to the innermost frame on the stack whose code is not a library's
(:class:`Owners`): the project's, or Tastypie's and djony's (Tastypie, Pony,
``djony``, ``tastypie_djony``, ``djony_verify`` itself).  Django, the standard library,
the third-party packages installed in the environment and djony's hooks inside Django's
own calls (:data:`djony.serving.INSIDE_DJANGO_CALLS`) belong to whoever called them: the
ORM work of a query the project's hook builds is the project's, the same ORM work asked
for by djony is djony's.  A sample is the project's only inside the resource's view
(:data:`RESOURCE_VIEW`); a view of the project's own that never calls DjonyResource's
gives no figure.  A project installed as a package into the environment's
``site-packages`` is a library by that rule; its share would show as 0%.

The figure is a share of DjonyResource's time, sampled, not timed: about 200 samples per
resource, so a few percent either way.  It says where the time goes, never how fast.
"""

from __future__ import annotations

import os
import signal
import site
import sysconfig
import threading
import time
from collections import Counter
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

from djony.serving import INSIDE_DJANGO_CALLS
from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify.running import Runner

#: The code of the call that sends one request through the project's handler: samples
#: count inside it only (not the runner's transaction and credentials around it).
REQUEST_CALL = Runner._request.__code__
#: The code every DjonyResource view runs for a read, inside ``wrap_view``'s wrapper.
RESOURCE_VIEW = DjonyResource._answer.__code__

#: Seconds of wall-clock time between two samples of the sending thread's stack.
SAMPLE_SECONDS = 0.0005
#: Samples wanted per resource; rounds of its requests are sent until there are as many.
TARGET_SAMPLES = 200
#: Fewer samples than this give no figure.
MIN_SAMPLES = 40
#: Rounds of a resource's requests at most (a resource answering in microseconds).
MAX_ROUNDS = 50


class Owners:
    """Whose a file of code is: the project's (``True``), Tastypie's or djony's
    (``False``), or a library's, which belongs to its caller (``None``)."""

    def __init__(self) -> None:
        import django
        import pony
        import tastypie

        import djony
        import tastypie_djony

        ours = [_package_dir(module) for module in (tastypie, pony, djony, tastypie_djony)]
        paths = sysconfig.get_paths()
        libraries = [paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib")]
        libraries += [*site.getsitepackages(), site.getusersitepackages()]
        libraries.append(_package_dir(django))  # (not the prefixes: /usr holds /usr/src/app)
        #: (directory with a trailing separator, owner), the longest first: a package of
        #: ours installed in ``site-packages`` is ours.
        self._dirs = sorted(
            {(_as_dir(path), False) for path in ours}
            | {(_as_dir(path), None) for path in libraries if path},
            key=lambda entry: -len(entry[0]),
        )
        #: djony's code run inside Django's calls (a statement's execute wrapper): the
        #: caller's, as Django's own code is.
        self._known: dict[str, bool | None] = dict.fromkeys(INSIDE_DJANGO_CALLS)

    def of(self, filename: str) -> bool | None:
        """The owner of the code in ``filename`` (see the class)."""
        try:
            return self._known[filename]
        except KeyError:
            pass
        if filename.startswith("<"):  # <frozen ...>, <string>: the interpreter's
            owner = None
        else:
            path = os.path.abspath(filename)
            owner = next((mine for prefix, mine in self._dirs if path.startswith(prefix)), True)
        self._known[filename] = owner
        return owner

    def sample(self, frame: FrameType | None, within: CodeType, view: CodeType) -> str | None:
        """Whose moment ``frame``'s stack is, looking no further out than the frame running
        ``within`` (the request): ``"project"`` when the innermost frame that is not a
        library's is the project's, inside a call of ``view`` (the resource's view);
        ``"resource"``, another moment of the view; ``"outside"``, a moment outside the
        view (Django's request cycle, the middleware, the project's included: the time
        djony_verify times outside the resource); ``None`` when no frame runs ``within``."""
        decided: bool | None = None
        in_view = False
        while frame is not None:
            code = frame.f_code
            if code is within:
                if not in_view:
                    return "outside"
                return "project" if decided else "resource"
            if code is view:
                in_view = True
            elif decided is None:
                decided = self.of(code.co_filename)
            frame = frame.f_back
        return None


def _package_dir(module: Any) -> str:
    return os.path.dirname(os.path.abspath(module.__file__))


def _as_dir(path: str) -> str:
    return os.path.join(os.path.abspath(path), "")


def can_sample() -> bool:
    """Whether :func:`project_shares` can sample here: the main thread, a system with
    ``signal.setitimer``, and ``SIGALRM`` and the real-time timer not in use."""
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )


def project_shares(
    send: Callable[[Any, Any], Any],
    requests: dict[str, list[tuple[Any, Any]]],
    deadline: float,
    within: CodeType = REQUEST_CALL,
    view: CodeType = RESOURCE_VIEW,
    owners: Owners | None = None,
) -> dict[str, float | None]:
    """Per resource, the share of its requests' time that was the project's code in
    the resource's view (``None``: fewer than :data:`MIN_SAMPLES` samples, the deadline
    came first, no sample was in the view, or no sampling here: :func:`can_sample`).

    ``requests``: resource -> ``[(request, side)]``; ``send(side, request)`` answers one
    (in this thread, whose stack is sampled).  Only samples inside a call of ``within``
    count (the request itself, not what ``send`` does around it: a transaction, a
    credential); ``view``: the code every view of the resources runs (:meth:`Owners.sample`).
    Stops at ``deadline`` (``time.monotonic()``).  The timer and the ``SIGALRM`` handler
    are put back as they were.
    """
    if not can_sample():
        return dict.fromkeys(requests)
    owners = owners or Owners()
    current: list[str | None] = [None]
    weights = {resource: Counter() for resource in requests}
    samples = Counter()
    last = [time.perf_counter()]

    def sample(_signum: int, frame: FrameType | None) -> None:
        now = time.perf_counter()
        elapsed, last[0] = now - last[0], now
        resource = current[0]
        if resource is None:
            return
        whose = owners.sample(frame, within, view)
        if whose is not None:
            weights[resource][whose] += elapsed
            samples[resource] += 1

    previous = signal.signal(signal.SIGALRM, sample)
    signal.siginterrupt(signal.SIGALRM, False)  # system calls go on after a sample
    signal.setitimer(signal.ITIMER_REAL, SAMPLE_SECONDS, SAMPLE_SECONDS)
    try:
        for resource, pairs in requests.items():
            rounds = 0
            while (
                samples[resource] < TARGET_SAMPLES
                and rounds < MAX_ROUNDS
                and time.monotonic() < deadline
            ):
                for request, side in pairs:
                    current[0] = resource
                    try:
                        send(side, request)
                    finally:
                        current[0] = None
                rounds += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return {
        resource: _share(weights[resource]) if samples[resource] >= MIN_SAMPLES else None
        for resource in requests
    }


def _share(weight: Counter) -> float | None:
    """The project's share of the time sampled, or ``None`` when none was in the view."""
    if not weight["project"] + weight["resource"]:
        return None
    return weight["project"] / weight.total()
