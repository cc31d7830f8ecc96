#!/usr/bin/env bash
# `make run`: DynamoDB Local (unless DYNAMODB_ENDPOINT_URL is set), the table and its migrations, the accounts
# database's migrations, the demo catalog on first run, then gunicorn on $PORT. Ctrl-C stops everything this
# script started.
# The settings it chooses (a secret key, DynamoDB Local's address) go to var/run.env, which
# storefront/settings.py reads, so `manage.py` in a second terminal works with nothing to set.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
PORT=${PORT:-8000}
mkdir -p var var/media  # var/media: the pictures staff upload (MEDIA_STORAGE=files, served by the app)
# Logs for people here (LOG_FORMAT=json for a log collector). Each request's line comes from the app
# (storefront/requestlog.py: with its request ID, DynamoDB requests and user), not gunicorn's access log.
export LOG_FORMAT=${LOG_FORMAT:-text}

children=()
chosen=()  # the settings this script chose: written to var/run.env
cleanup() {
  for pid in "${children[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${children[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'echo; echo "Stopping."; exit 130' INT TERM

if [ -z "${DYNAMODB_ENDPOINT_URL+set}" ]; then
  if ! command -v java >/dev/null; then
    cat >&2 <<MSG
Java 17 is needed to run DynamoDB Local (Debian: apt-get install openjdk-17-jre-headless).
Or use a DynamoDB you already have:
  DYNAMODB_ENDPOINT_URL=http://host:port make run   # another DynamoDB Local
  DYNAMODB_ENDPOINT_URL= make run                    # AWS DynamoDB (credentials from the usual AWS chain)
MSG
    exit 1
  fi
  ddb_port=${DYNAMODB_LOCAL_PORT:-8001}
  export DYNAMODB_ENDPOINT_URL="http://127.0.0.1:${ddb_port}"
  chosen+=(DYNAMODB_ENDPOINT_URL)
  if $PY -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', ${ddb_port})) != 0)"; then
    echo "Port ${ddb_port} is already in use: stop what runs there, or choose DYNAMODB_LOCAL_PORT=..." >&2
    exit 1
  fi
  $PY tools/dynamodb_local.py install
  echo "Starting DynamoDB Local on port ${ddb_port} (data in var/dynamodb, log in var/dynamodb-local.log)"
  $PY tools/dynamodb_local.py run --port "${ddb_port}" --db-path var/dynamodb >var/dynamodb-local.log 2>&1 &
  children+=($!)
  $PY -c "from tools.dynamodb_local import wait_ready; wait_ready('${DYNAMODB_ENDPOINT_URL}')"
fi

# Card payments on this machine: localstripe (a fake Stripe with a fake Stripe.js and signed webhooks), unless
# the shop takes no card payments (SHOP_PAYMENTS=off) or Stripe keys of your own are set (Stripe's test mode).
if [ "${SHOP_PAYMENTS:-stripe}" != "off" ] && [ -z "${STRIPE_SECRET_KEY:-}" ]; then
  stripe_port=${STRIPE_LOCAL_PORT:-8420}
  if $PY -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', ${stripe_port})) != 0)"; then
    echo "Port ${stripe_port} is already in use: stop what runs there, or choose STRIPE_LOCAL_PORT=..." >&2
    exit 1
  fi
  export STRIPE_API_BASE="http://127.0.0.1:${stripe_port}"
  export STRIPE_JS_URL="${STRIPE_API_BASE}/js.stripe.com/v3/"
  export STRIPE_SECRET_KEY=sk_test_localstripe STRIPE_PUBLISHABLE_KEY=pk_test_localstripe
  [ -s var/stripe_webhook_secret ] || $PY -c "import secrets; print('whsec_' + secrets.token_hex(16))" >var/stripe_webhook_secret
  STRIPE_WEBHOOK_SECRET=$(cat var/stripe_webhook_secret)
  export STRIPE_WEBHOOK_SECRET
  chosen+=(STRIPE_API_BASE STRIPE_JS_URL STRIPE_SECRET_KEY STRIPE_PUBLISHABLE_KEY STRIPE_WEBHOOK_SECRET)
  echo "Starting localstripe on port ${stripe_port} (pay with 4242 4242 4242 4242; log in var/localstripe.log)"
  $PY tools/stripe_local.py run --port "${stripe_port}" --keep >var/localstripe.log 2>&1 &
  children+=($!)
  # Its webhooks go to this shop, signed with the secret the shop checks.
  $PY tools/stripe_local.py webhook --url "${STRIPE_API_BASE}" --secret "${STRIPE_WEBHOOK_SECRET}" \
    --endpoint "http://127.0.0.1:${PORT}/payments/stripe/webhook/"
fi

if [ -z "${DJANGO_SECRET_KEY:-}" ]; then
  [ -s var/secret_key ] || $PY -c "import secrets; print(secrets.token_urlsafe(50))" >var/secret_key
  DJANGO_SECRET_KEY=$(cat var/secret_key)
  export DJANGO_SECRET_KEY
  chosen+=(DJANGO_SECRET_KEY)
fi

# What this run chose, for manage.py in another terminal (the environment still wins there). Only
# what the script made up itself: a secret key or database address you set is not copied to disk.
$PY - "${chosen[@]}" <<'PY'
import datetime, os, sys
lines = [f"# Written by `make run` at {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC: the settings it chose.",
         "# storefront/settings.py reads them when they are not in the environment. Never commit this file."]
for name in sys.argv[1:]:
    value = os.environ[name].replace("\\", "\\\\").replace('"', '\\"')
    lines.append(f'{name}="{value}"')
fd = os.open("var/run.env.new", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, "w") as out:
    out.write("\n".join(lines) + "\n")
os.replace("var/run.env.new", "var/run.env")
PY

# A database from before accounts had a customer ID (Django's own auth_user table) cannot be migrated
# to the shop's user model in place: move it aside and start with an empty one. Orders placed under
# its accounts stay in DynamoDB under CUSTOMER#<row number>, where no new account can reach them.
if [ -z "${DATABASE_URL:-}" ] && [ -f var/db.sqlite3 ] && $PY - <<'PY'
import sqlite3, sys
tables = {row[0] for row in sqlite3.connect("var/db.sqlite3").execute("SELECT name FROM sqlite_master")}
sys.exit(0 if "auth_user" in tables and "shop_user" not in tables else 1)
PY
then
  old="var/db.sqlite3.before-customer-ids.$(date +%Y%m%d%H%M%S)"
  mv var/db.sqlite3 "$old"
  echo "var/db.sqlite3 has accounts from before customer IDs: moved it to $old and starting a new one." >&2
  echo "Sign up again (and createsuperuser for staff); orders of the old accounts are not shown to anyone." >&2
fi
# The table first: Django's migrate runs the table check (catalog/checks.py), which refuses a table
# that lacks a step of migrate_table.
$PY manage.py create_table
$PY manage.py migrate_table
$PY manage.py migrate --noinput -v 0
$PY manage.py import_catalog --demo --if-empty
$PY manage.py collectstatic --noinput -v 0

# The stock jobs beside the server (back-in-stock alerts; README "Back in stock"): a pass every
# STOCK_JOBS_INTERVAL seconds; Ctrl-C stops it with the rest.
$PY manage.py run_stock_jobs --loop "${STOCK_JOBS_INTERVAL:-10}" &
children+=($!)

# Each worker's heartbeat touches a file every loop: on a disk-backed /tmp that can wait for the
# disk and hold up the worker (gunicorn's docs, worker_tmp_dir). /dev/shm is memory, where there is one.
worker_tmp_dir=${GUNICORN_WORKER_TMP_DIR:-}
if [ -z "$worker_tmp_dir" ] && [ -d /dev/shm ]; then worker_tmp_dir=/dev/shm; fi

# gunicorn's own threaded worker (gthread); bench/load.py reads these flags. gunicorn.conf.py (read from
# here) gives the workers a fresh directory for their metrics (PROMETHEUS_MULTIPROC_DIR) each start.
# Passkeys over plain http on this machine: open http://localhost:PORT/ for them (a passkey's site is a
# name; browsers refuse an IP address such as 127.0.0.1).
export MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN=${MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN:-1}
echo "Serving Fromatoz on http://127.0.0.1:${PORT}/ (Ctrl-C stops; passkeys: http://localhost:${PORT}/; metrics on /metrics, health on /healthz and /readyz)"
.venv/bin/gunicorn storefront.wsgi:application \
  --bind "${HOST:-127.0.0.1}:${PORT}" \
  --worker-class gthread --workers "${WEB_CONCURRENCY:-2}" --threads "${GUNICORN_THREADS:-8}" \
  ${worker_tmp_dir:+--worker-tmp-dir "$worker_tmp_dir"} &
children+=($!)
wait "${children[-1]}"
