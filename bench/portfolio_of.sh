#!/usr/bin/env bash
# N head offices (order 0001) of a release's RFB establishments, every STEP-th of its COMPANIES
# so they spread evenly, read with unzip and awk (not by fiscal-report), one CNPJ a line on
# stdout: the portfolio the open-data benches run over.
#
#   bench/portfolio_of.sh RELEASE_DIR COMPANIES N > portfolio.txt
# Needs: unzip.
set -euo pipefail
RELEASE=$1 COMPANIES=$2 N=$3
STEP=$(( COMPANIES / N ))
for z in "$RELEASE"/cnpj/*/Estabelecimentos*.zip; do unzip -p "$z"; done \
  | awk -F'";"' -v step="$STEP" '$2 == "0001" { if (n++ % step == 0) { gsub(/"/, "", $1); print $1 $2 $3 } }' \
  | head -n "$N"
