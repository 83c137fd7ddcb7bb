#!/usr/bin/env bash
# Spark needs Java 17 or newer, and the placed runtime's JVM class (src/streamplace/spark/runtime/jvm/LocatedRDD.java) is
# compiled here with javac: install a headless JDK non-interactively when either is missing.
set -euo pipefail

java_major() {
    java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1") ? v[2] : v[1]; exit}'
}

if command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1; then
    major=$(java_major || echo 0)
    if [ "${major:-0}" -ge 17 ] 2>/dev/null; then
        exit 0
    fi
    echo "ensure-java: found Java ${major}, Spark needs 17 or newer; installing OpenJDK 17" >&2
elif command -v java >/dev/null 2>&1; then
    echo "ensure-java: java but no javac on PATH; installing OpenJDK 17's JDK (headless)" >&2
else
    echo "ensure-java: no java on PATH; installing OpenJDK 17 (headless JDK)" >&2
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-java: cannot install Java here (no apt-get). Install a JDK 17+ (java and javac) and re-run." >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
        echo "ensure-java: need root to install OpenJDK 17; run: apt-get install -y openjdk-17-jdk-headless" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless >/dev/null
java -version 2>&1 | head -1 >&2
javac -version >&2
