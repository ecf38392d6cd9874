#!/usr/bin/env bash
set -euo pipefail
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
jar=/usr/share/java/junit-platform-console-standalone.jar
javac -encoding UTF-8 -d "$out/main" $(find src/main/java -name '*.java')
javac -encoding UTF-8 -d "$out/test" -cp "$out/main:$jar" $(find src/test/java -name '*.java')
java -jar "$jar" --class-path "$out/test:$out/main" --scan-class-path --disable-banner --details=summary --fail-if-no-tests --reports-dir "${SIMPILOT_REPORTS:-$out/reports}"
