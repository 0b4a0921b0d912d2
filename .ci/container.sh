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
echo "container stage passed in $(( $(date +%s) - started )) s"
