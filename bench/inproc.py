"""In-process page timings with pyperf (its worker processes, warm-ups, calibration and JSON).

Run with the working directory at the root of the tree to measure (this tree's, or REF's for
`make bench-compare`), the Django settings and DYNAMODB_TABLE in the environment and the pages in
BENCH_PAGES (JSON: [{"name", "path", "headers"}]). Benchmarks `render_<page>`: the page through the tree's
Django test client; with --raw also `raw_<page>`: the DynamoDB requests that page makes with a warm name
cache (its first one when it makes none), recorded on the client's own events and sent again alone.

    python bench/inproc.py -o render.json --copy-env [--raw] [pyperf options: -p, -n, -w, -l]
"""
import copy
import json
import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
sys.path.insert(0, os.getcwd())  # the tree being measured, not this script's

import pyperf  # noqa: E402


def page_render(client, page):
    headers = {f"HTTP_{k.upper().replace('-', '_')}": v for k, v in page.get("headers", {}).items()}
    state = {"cold": True}

    def render():
        for _ in range(4 if state["cold"] else 1):  # a cold process on a busy machine may overrun the page budget
            response = client.get(page["path"], **headers)
            if response.status_code != 503:
                break
        state["cold"] = False
        if response.status_code != 200:  # a page that fails is not a fast page
            raise SystemExit(f"{page['name']} {page['path']}: HTTP {response.status_code}")

    return render


def page_raw(render):
    recorded = []

    def raw():
        if not recorded:
            from botocore import xform_name
            from django.core.cache import cache

            from catalog.gateway import client as dynamo

            ddb = dynamo.client()

            def record(params, model, **kwargs):
                recorded.append((getattr(ddb, xform_name(model.name)), copy.deepcopy(params)))

            render()  # the name cache, warm as on a busy site
            ddb.meta.events.register("before-parameter-build.dynamodb", record)
            try:
                render()
                if not recorded:
                    cache.clear()
                    render()
                    del recorded[1:]
            finally:
                ddb.meta.events.unregister("before-parameter-build.dynamodb", record)
        for method, params in recorded:
            method(**params)

    return raw


def main():
    runner = pyperf.Runner(add_cmdline_args=lambda cmd, args: cmd.extend(["--raw"] if args.raw else []))
    runner.argparser.add_argument("--raw", action="store_true", help="also time each page's DynamoDB requests alone")
    args = runner.parse_args()
    import django
    from django.test import Client

    django.setup()
    client = Client(HTTP_HOST="127.0.0.1")
    for page in json.loads(os.environ["BENCH_PAGES"]):
        render = page_render(client, page)
        runner.bench_func(f"render_{page['name']}", render)
        if args.raw:
            runner.bench_func(f"raw_{page['name']}", page_raw(render))


if __name__ == "__main__":
    main()
