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
DjonyResource side while a thread looks at the sending thread's stack every
:data:`SAMPLE_SECONDS` (the interpreter's switch interval lowered meanwhile, so the
samples come while Python code runs, not only when it waits for the database).  A sample
belongs to the innermost frame on the stack whose code is not a library's
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
import site
import sys
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

#: Seconds between two looks at the sending thread's stack.
SAMPLE_SECONDS = 0.0005
#: The interpreter's switch interval while sampling (its default, 5 ms, would let the
#: sampler in only when the request waits for the database).
SWITCH_SECONDS = 0.0001
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


def project_shares(
    send: Callable[[Any, Any], Any],
    requests: dict[str, list[tuple[Any, Any]]],
    deadline: float,
    within: CodeType = REQUEST_CALL,
    view: CodeType = RESOURCE_VIEW,
    owners: Owners | None = None,
) -> dict[str, float | None]:
    """Per resource, the share of its requests' samples that were the project's code in
    the resource's view (``None``: fewer than :data:`MIN_SAMPLES`, the deadline came
    first, or no sample was in the view).

    ``requests``: resource -> ``[(request, side)]``; ``send(side, request)`` answers one
    (in this thread, whose stack is sampled).  Only samples inside a call of ``within``
    count (the request itself, not what ``send`` does around it: a transaction, a
    credential); ``view``: the code every view of the resources runs (:meth:`Owners.sample`).
    Stops at ``deadline`` (``time.monotonic()``).
    """
    owners = owners or Owners()
    sending = threading.get_ident()
    current: list[str | None] = [None]
    counts = {resource: Counter() for resource in requests}
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(SAMPLE_SECONDS):
            resource = current[0]
            frame = sys._current_frames().get(sending)
            if resource is None or frame is None:
                continue
            whose = owners.sample(frame, within, view)
            if whose is not None:
                counts[resource][whose] += 1

    switch = sys.getswitchinterval()
    sampler = threading.Thread(target=sample, name="djony_verify sampler", daemon=True)
    sys.setswitchinterval(SWITCH_SECONDS)
    sampler.start()
    try:
        for resource, pairs in requests.items():
            rounds = 0
            while (
                counts[resource].total() < TARGET_SAMPLES
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
        stop.set()
        sampler.join()
        sys.setswitchinterval(switch)
    return {resource: _share(count) for resource, count in counts.items()}


def _share(count: Counter) -> float | None:
    seen = count.total()
    if seen < MIN_SAMPLES or not count["project"] + count["resource"]:
        return None
    return count["project"] / seen
