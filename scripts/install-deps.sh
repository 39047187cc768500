#!/usr/bin/env bash
# Installs the Debian 12 packages gapscope builds and tests with (as root or through sudo).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y --no-install-recommends \
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev libeigen3-dev libboost-dev \
  libsimdjson-dev zlib1g-dev cmake ninja-build g++ fonts-dejavu-core fontconfig xvfb xauth \
  desktop-file-utils shared-mime-info \
  libqt6sql6-sqlite python3-dask python3-distributed
