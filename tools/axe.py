"""axe-core, Deque's accessibility checker, for the browser tests: fetch it, check it.

We fetch the one npm tarball with `npm pack` (never a CDN), check its sha256 and keep axe.min.js
under var/ (git-ignored). The browser tests inject it with page.add_script_tag(path=...).

    python tools/axe.py install
"""
import argparse
import os
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

try:  # imported as tools.<name> (tests) or run as tools/<name>.py (make)
    from tools.npm_tarball import Missing, fetch
except ImportError:
    from npm_tarball import Missing, fetch

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "axe-core@4.14.1"
SHA256 = "e6b0ce02b84d892e2e33e403485e7f3d6c29e2be6df65daf44d89ba564139745"
HOME = Path(os.environ.get("AXE_CORE_HOME", ROOT / "var" / "axe-core"))
SCRIPT = HOME / "axe.min.js"
# The WCAG 2.2 A and AA rules (axe's tags for them).
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def installed():
    marker = HOME / ".sha256"
    return SCRIPT.is_file() and marker.is_file() and marker.read_text().strip() == SHA256


def install(quiet=False):
    """Fetch and check axe-core, unless it is there already; returns the path of axe.min.js."""
    if installed():
        return SCRIPT
    with tempfile.TemporaryDirectory() as tmp:
        tarball = fetch(PACKAGE, SHA256, tmp, quiet=quiet)
        with tarfile.open(tarball) as tar:
            member = tar.getmember("package/axe.min.js")
            tar.extractall(tmp, members=[member], filter="data")
        HOME.mkdir(parents=True, exist_ok=True)
        shutil.move(str(Path(tmp) / "package" / "axe.min.js"), SCRIPT)
        (HOME / ".sha256").write_text(SHA256 + "\n")
    if not quiet:
        print(f"axe-core installed in {HOME}")
    return SCRIPT


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("install", help="fetch and check axe-core")
    args = parser.parse_args(argv)
    try:
        if args.action == "install":
            install()
    except Missing as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
