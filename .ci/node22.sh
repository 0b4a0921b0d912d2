#!/usr/bin/env bash
# Prints a folder whose `node` is Node.js 22 LTS, the supported baseline (README "Quick start"):
# the machine's own when it is 22 or newer, otherwise the npm registry's Node binary package
# (node-linux-<arch>@22) installed once into the CI cache. npm itself is a script run by the first
# `node` on PATH, so putting this folder first makes npm, npx and the suite run on 22 too.
set -euo pipefail
want=22
have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$have" -ge "$want" ]; then dirname "$(command -v node)"; exit 0; fi
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "no Node.js $want binary package for $(uname -m)" >&2; exit 1 ;;
esac
cache="${CRADLE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cradle-ci}/node$want-$arch"
bin="$cache/node_modules/node-linux-$arch/bin"
if ! [ -x "$bin/node" ] || [ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" != "$want" ]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-save --no-audit --no-fund --no-package-lock "node-linux-$arch@$want" >&2
fi
echo "$bin"
