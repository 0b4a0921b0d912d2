#!/usr/bin/env bash
# CI stage "container" (.ci/run): builds the image with podman from Debian, runs it with a read-only
# root file system and a data volume, files a report through a portal, restarts it and finds the
# report again, checks that every process runs as a non-root user, and checks compose.yaml
# statically (its PostgreSQL and Redis images cannot be pulled here). No registry is reachable, so
# the base image (NODE_IMAGE) is made from Debian packages (debootstrap) plus Node.js 22 from the
# npm registry's binary package, the machine's own CA certificates and npm. Idempotent: the base
# image is made once and kept; the rest reuses podman's layer cache.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
cache="${CRADLE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cradle-ci}"
base=localhost/cradle-ci-node:22
image=localhost/cradle:ci
port=38180
name=cradle-ci-$$
volume=cradle-ci-data-$$

need=""
for c in podman podman-compose debootstrap runc; do command -v "$c" >/dev/null || need="$need $c"; done
[ -z "$need" ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends podman podman-compose debootstrap runc uidmap >/dev/null; }

# What these machines need (docs/container.md "CI"): the runc runtime, no default ulimits.
mkdir -p "$cache"
cat > "$cache/containers.conf" <<'CONF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$cache/containers.conf"

if ! podman image exists "$base"; then
  node22="$(.ci/node22.sh)"
  root="$cache/rootfs"
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >/dev/null
  install -m 0755 "$node22/node" "$root/usr/local/bin/node"
  # The binary package has no npm: the image takes the registry's npm package (the build stage runs npm ci).
  npm pack --silent --pack-destination "$cache" npm@10 >/dev/null
  mkdir -p "$root/usr/local/lib/node_modules/npm"
  tar -xzf "$cache"/npm-10.*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  # Outgoing TLS here goes through the machine's own CA (Debian's folder of local CA certificates).
  mkdir -p "$root/usr/local/share/ca-certificates"
  cat /usr/local/share/ca-certificates/*.crt > "$root/usr/local/share/ca-certificates/ci.pem" 2>/dev/null || true
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | podman import --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/ci.pem' --change 'CMD ["node"]' - "$base" >/dev/null
  rm -rf "$root"
fi
podman run --rm "$base" node --version

podman build --network host --format docker --build-arg NODE_IMAGE="$base" -t "$image" . >/dev/null
echo "image built ($(( $(date +%s) - started )) s)"

cleanup() { podman rm -f "$name" >/dev/null 2>&1 || true; podman volume rm -f "$volume" >/dev/null 2>&1 || true; }
trap cleanup EXIT
podman volume create "$volume" >/dev/null
podman run -d --name "$name" --read-only --tmpfs /tmp --network host -v "$volume:/data" \
  -e PORT=$port -e PUBLIC_URL=http://localhost:$port "$image" >/dev/null

healthy() {
  for _ in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
    sleep 1
  done
  podman logs "$name" | tail -20
  echo "the container did not become ready" >&2
  return 1
}
healthy
[ "$(podman inspect --format '{{.Config.User}}' "$name")" = "10001:10001" ]
# Every process in the container, by its real user id: none is root.
podman top "$name" huser user args
if podman top "$name" huser | tail -n +2 | grep -qx 'root\|0'; then echo "a process runs as root" >&2; exit 1; fi

podman exec "$name" node dist/cli/main.js company create --slug ci --name "CI Company" --plan enterprise >/dev/null
page=$(curl -fsS -H "Host: ci.localhost:$port" -H 'Accept: text/html' \
  --data-urlencode 'description=container smoke report' --data-urlencode 'stepsToReproduce=steps' --data-urlencode 'impact=impact' \
  "http://127.0.0.1:$port/submit")
status=$(printf '%s' "$page" | sed -n 's/.*id="status-link" href="\([^"]*\)".*/\1/p' | head -n1)
[ -n "$status" ] || { echo "no status link in the portal's answer" >&2; exit 1; }
path="/${status#*://*/}"
submission=$(printf '%s' "$page" | sed -n 's/.*id="submission-id">\([0-9a-f-]*\)<.*/\1/p' | head -n1)
[ -n "$submission" ] || { echo "no submission id in the portal's answer" >&2; exit 1; }

podman restart --time 20 "$name" >/dev/null
healthy
# The status page names the report by its submission id (it never echoes the report's text).
curl -fsS -H "Host: ci.localhost:$port" "http://127.0.0.1:$port$path" | grep -q "<code>$submission</code>" \
  || { echo "the report is gone after the restart" >&2; exit 1; }
podman stop --time 20 "$name" >/dev/null
[ "$(podman inspect --format '{{.State.ExitCode}}' "$name")" = "0" ] || { echo "SIGTERM did not stop the server cleanly" >&2; podman logs "$name" | tail -5; exit 1; }

# compose.yaml, statically (its images cannot be pulled here): parsed with the YAML library
# podman-compose itself uses (Debian's podman-compose 1.0 has no `config` command), it names
# Cradle, PostgreSQL and Redis, and hands Cradle the operator key as a secret file.
python3 - compose.yaml <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
s = c["services"]
assert set(s) >= {"cradle", "postgres", "redis"}, s.keys()
assert s["postgres"]["image"].startswith("docker.io/library/postgres:") and s["redis"]["image"].startswith("docker.io/library/redis:")
assert "cradle_operator_key" in s["cradle"]["secrets"] and c["secrets"]["cradle_operator_key"]["file"] == "./secrets/operator.key"
assert s["cradle"]["environment"]["SECRETS_KEY_FILE"] == "/run/secrets/cradle_operator_key"
assert s["cradle"]["read_only"] is True and "cradle-data:/data" in s["cradle"]["volumes"]
print("compose.yaml: cradle, postgres, redis; operator key as a secret file")
PY

# The compose stack run as compose.yaml defines its Cradle service (entrypoint, environment, both
# secret files bind-mounted under /run/secrets, read-only root, tmpfs, data volume), against this machine's
# PostgreSQL and Redis in place of the stack's two images, which cannot be pulled here. Only the
# addresses change (DATABASE_HOST, REDIS_URL, PORT); the entrypoint builds DATABASE_URL from the
# password secret as it does in the stack. Passes when a report filed through the portal is a row in
# PostgreSQL's `cradle` database and the rate limiter's keys are in Redis.
service=$(python3 - compose.yaml <<'PY2'
import json, os, sys, yaml
top = yaml.safe_load(open(sys.argv[1]))
c = top["services"]["cradle"]
undollar = lambda v: str(v).replace("$$", "$")
print(json.dumps({"entrypoint": [undollar(a) for a in c["entrypoint"]],
                  "env": {k: undollar(v) for k, v in c["environment"].items()},
                  "secrets": {n: os.path.basename(top["secrets"][n]["file"]) for n in c["secrets"]},
                  "read_only": c["read_only"]}))
PY2
)
field() { printf '%s' "$service" | python3 -c "import json,sys; v=json.load(sys.stdin)$1; print(v if isinstance(v, str) else json.dumps(v))"; }
[ "$(field '["read_only"]')" = "True" ] || [ "$(field '["read_only"]')" = "true" ]
cport=$((port + 1))
cname=cradle-compose-$$
cvolume=cradle-compose-data-$$
secrets=""
compose_cleanup() {
  podman rm -f "$cname" >/dev/null 2>&1 || true
  podman volume rm -f "$cvolume" >/dev/null 2>&1 || true
  [ -z "$secrets" ] || rm -rf "$secrets"
  psql -h 127.0.0.1 -U postgres -d postgres -qc 'drop database if exists cradle with (force)' >/dev/null 2>&1 || true
}
trap 'cleanup; compose_cleanup' EXIT
compose_cleanup
secrets=$(mktemp -d)
openssl rand -base64 32 > "$secrets/operator.key"
openssl rand -hex 24 > "$secrets/postgres-password"
psql -h 127.0.0.1 -U postgres -d postgres -qc "do \$\$ begin if not exists (select from pg_roles where rolname = 'cradle') then create role cradle login; end if; end \$\$"
psql -h 127.0.0.1 -U postgres -d postgres -qc 'create database cradle owner cradle'
envs=()
while IFS='=' read -r k v; do envs+=(-e "$k=$v"); done < <(printf '%s' "$service" | python3 -c '
import json, sys
env = json.load(sys.stdin)["env"]
env.update(DATABASE_HOST="127.0.0.1", REDIS_URL="redis://127.0.0.1:6379", PORT=sys.argv[1], PUBLIC_URL="http://localhost:" + sys.argv[1])
for k, v in env.items(): print(f"{k}={v}")' "$cport")
# File secrets are bind mounts at /run/secrets/<name>, as podman-compose and docker compose make them.
secret_args=()
while read -r sname sfile; do
  [ -f "$secrets/$sfile" ] || { echo "compose.yaml's secret $sname ($sfile) is not one this stage makes" >&2; exit 1; }
  secret_args+=(-v "$secrets/$sfile:/run/secrets/$sname:ro")
done < <(field '["secrets"]' | python3 -c 'import json,sys; [print(k, v) for k, v in json.load(sys.stdin).items()]')
podman volume create "$cvolume" >/dev/null
podman run -d --name "$cname" --read-only --tmpfs /tmp --network host -v "$cvolume:/data" \
  "${secret_args[@]}" "${envs[@]}" --entrypoint "$(field '["entrypoint"]')" "$image" >/dev/null
name=$cname port=$cport healthy
# The CLI in the container reaches the same database the way the entrypoint does.
podman exec "$cname" sh -c 'DATABASE_URL="postgres://cradle:$(cat /run/secrets/postgres_password)@$DATABASE_HOST:5432/cradle" node dist/cli/main.js company create --slug compose --name "Compose Company" --plan enterprise' >/dev/null
curl -fsS -H "Host: compose.localhost:$cport" -H 'Accept: text/html' \
  --data-urlencode 'description=compose smoke report' --data-urlencode 'stepsToReproduce=steps' --data-urlencode 'impact=impact' \
  "http://127.0.0.1:$cport/submit" | grep -q 'id="status-link"' || { echo "the compose service did not take a report" >&2; exit 1; }
[ "$(psql -h 127.0.0.1 -U postgres -d cradle -tAc 'select count(*) from reports')" = "1" ] \
  || { echo "the report is not in PostgreSQL" >&2; podman logs "$cname" | tail -5; exit 1; }
redis-cli -h 127.0.0.1 -p 6379 --scan --pattern 'cradle:rl:*' | grep -q . || { echo "no rate-limit keys in Redis" >&2; exit 1; }
podman stop --time 20 "$cname" >/dev/null
[ "$(podman inspect --format '{{.State.ExitCode}}' "$cname")" = "0" ] || { echo "SIGTERM did not stop the compose service cleanly" >&2; exit 1; }
echo "compose service: report stored in PostgreSQL, rate limits in Redis, clean stop"
echo "container stage passed in $(( $(date +%s) - started )) s"
