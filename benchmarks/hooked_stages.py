"""The stages of one hooked list page on DjonyResource, each timed on its own.

    python -m benchmarks.hooked_stages                  # the hooked variant, 1000 users
    python -m benchmarks.hooked_stages --variant full --repeat 30

Runs the steps of ``DjonyResource._bundle_list`` one by one on the same page
(:mod:`tastypie_djony.serve.plans`) and reports the best of ``--repeat`` runs of each, in
milliseconds, so a lever can be measured without the noise of whole requests on a
shared machine: the page query with its values, the bundles (values, hooks, objects
when read), building every object of the page (what a hook reading ``bundle.obj``
adds), Tastypie's ``to_simple`` against :func:`tastypie_djony.convert.simple` of the
same page (checked equal first), and ``json.dumps``.  Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any


def best_ms(work: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="hooked", help="a variant of benchmarks.variants")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--database")
    args = parser.parse_args(argv)

    from benchmarks.inprocess import setup

    setup(args.database)
    from django.core.management import call_command
    from django.test import RequestFactory
    from pony.orm import db_session

    from benchmarks.targets import credentials
    from benchmarks.variants import APIS
    from example_project.showcase import seeding
    from tastypie_djony.convert import render_json, simple

    call_command("migrate", verbosity=0)
    seeding.seed(users=1000, reset=not seeding.is_seeded(1000), progress=None)
    resource = APIS[(args.variant, "v3")]._registry["auth/user"]
    request = RequestFactory().get(
        "/?format=json&limit=0", HTTP_ACCEPT="application/json", **credentials(args.variant)
    )
    resource.is_authenticated(request)  # sets request.user for ApiKeyAuthentication (full)
    plan = resource.bundle_plan(request)
    if plan is None:
        raise SystemExit(f"{args.variant}: not served by the bundle plan")
    serializer = resource._meta.serializer

    def page_list() -> Any:
        objects = resource.obj_get_list(bundle=resource.build_bundle(request=request))
        return resource.apply_sorting(objects, options=request.GET)[0:]

    def fresh_page() -> dict:
        return {"meta": {"limit": 0}, "objects": plan.bundles(page_list(), request)}

    results: dict[str, float] = {}
    with db_session(strict=False):
        results["page query and values (rows_and_objects)"] = best_ms(
            lambda: page_list().rows_and_objects(plan.selected(page_list())), args.repeat
        )

        def objects() -> None:
            page_list().rows_and_objects(plan.selected(page_list()))[1]()

        results["  + every object of the page (Pony, loaders)"] = best_ms(objects, args.repeat)
        results["bundles (values, hooks, objects read by hooks)"] = best_ms(fresh_page, args.repeat)
        page = fresh_page()
        if serializer.to_simple(page, {}) != simple(page, serializer, {}):
            raise SystemExit("simple() differs from to_simple(): not timing")
        results["Tastypie to_simple"] = best_ms(lambda: serializer.to_simple(page, {}), args.repeat)
        results["hooked.simple"] = best_ms(lambda: simple(page, serializer, {}), args.repeat)
        plain = simple(page, serializer, {})
        results["json.dumps (render_json)"] = best_ms(lambda: render_json(plain), args.repeat)
    print(f"{args.variant} list of 1000 users, best of {args.repeat} runs\n")
    print("| stage | best ms |")
    print("|---|---:|")
    for stage, ms in results.items():
        print(f"| {stage} | {ms:.2f} |")


if __name__ == "__main__":
    main()
