"""Fetch an npm package's tarball and check it against a pinned sha256 (DynamoDB Local, axe-core)."""
import hashlib
import shutil
import subprocess
from pathlib import Path


class Missing(RuntimeError):
    pass


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(package, expected_sha256, into, *, quiet=False):
    """`npm pack` `package` into the directory `into`; the tarball's Path, or Missing when npm is
    absent or the tarball is not the pinned one (its sha256 differs)."""
    if not shutil.which("npm"):
        raise Missing(f"npm is needed to fetch {package} (apt-get install npm).")
    subprocess.run(
        ["npm", "pack", package, "--silent", "--pack-destination", str(into)],
        check=True, stdout=subprocess.DEVNULL if quiet else None,
    )
    tarballs = list(Path(into).glob("*.tgz"))
    if len(tarballs) != 1:
        raise Missing(f"npm pack {package} produced {len(tarballs)} tarballs")
    found = sha256(tarballs[0])
    if found != expected_sha256:
        raise Missing(f"{tarballs[0].name}: sha256 {found}, expected {expected_sha256}; refusing to use it.")
    return tarballs[0]
