"""A/B page benchmark: `make bench-compare REF=<commit>`.

REF's tree (`git archive` into var/bench-compare/ref) and this working tree time every page in-process with
pyperf (bench/inproc.py run in each tree, against one catalog in one DynamoDB Local), in alternating rounds
(REF then tree, then tree then REF), each round's runs added to compare-ref.json and compare-tree.json.
var/bench/compare.md is `pyperf compare_to --table` of the two (its significance test included);
compare.json has each page's medians and tree / REF. The catalog is imported with this tree's importer;
REF must be able to read that table.
"""

import argparse
import json
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

from .run import ROOT


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ref", required=True, help="the commit to compare the working tree with")
    parser.add_argument("--products", type=int, default=100_000, help="catalog size (default 100000)")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds (default 4)")
    parser.add_argument("--pyperf", default="-p 2 -n 10 -w 2", type=str.split, help="pyperf options a round and tree")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench", help="where results go")
    return parser.parse_args(argv)


def checkout(ref, into):
    """The tree of `ref` in `into` (replaced); returns the commit."""
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=ROOT, capture_output=True,
                            text=True)
    if commit.returncode != 0:
        raise SystemExit(f"bench-compare: {ref!r} is not a commit of this repository")
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit.stdout.strip()], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return commit.stdout.strip()


def main(argv=None):
    import pyperf

    from .pages import PAGES
    from .run import import_catalogs, inproc, log, medians_ms, served_settings

    args = parse_args(argv)
    args.pages = PAGES
    args.out.mkdir(parents=True, exist_ok=True)
    roots = {"ref": ROOT / "var" / "bench-compare" / "ref", "tree": ROOT}
    ref_commit = checkout(args.ref, roots["ref"])
    files = {side: args.out / f"compare-{side}.json" for side in roots}
    with served_settings(args.out, "compare-") as env:
        from .load import collectstatic
        from .pages import discover_ids

        table = import_catalogs([args.products], f"compare-{secrets.token_hex(4)}")[0][args.products]
        page_ids = discover_ids(log=log)
        collectstatic(env, root=roots["ref"])
        for path in files.values():
            path.unlink(missing_ok=True)
        order = list(roots)
        for n in range(args.rounds):
            log(f"round {n + 1} of {args.rounds}: {' then '.join(order)}")
            for side in order:
                done = inproc(None, table, page_ids, args, raw=False, root=roots[side], name=f"{side}-round.json")
                pyperf.add_runs(str(files[side]), pyperf.BenchmarkSuite.load(str(done)))
            order.reverse()
    table = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", "--table", str(files["ref"]),
                            str(files["tree"])], capture_output=True, text=True, check=True).stdout
    ms = {side: medians_ms(path) for side, path in files.items()}
    pages = {name.removeprefix("render_"): {"ref_ms": ref, "tree_ms": ms["tree"][name],
                                            "ratio": round(ms["tree"][name] / ref, 3)}
             for name, ref in ms["ref"].items()}
    meta = {"ref": f"{args.ref} ({ref_commit[:10]})", "products": args.products, "rounds": args.rounds,
            "pyperf": " ".join(args.pyperf)}
    (args.out / "compare.json").write_text(json.dumps({"meta": meta, "pages": pages}, indent=1))
    text = (f"# {meta['ref']} (ref) against the working tree (tree), {args.products:,} products, {args.rounds} "
            f"rounds\n\nEach page rendered in-process (pyperf compare_to):\n\n```\n{table.rstrip()}\n```\n")
    (args.out / "compare.md").write_text(text)
    print("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
