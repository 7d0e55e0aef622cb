#!/bin/sh
# Apicurio Registry's runner jar, configured as apicurio/apicurio-registry 3 is: the APICURIO_*
# (and QUARKUS_*) variables, which Quarkus reads itself, and JAVA_OPTS_APPEND for the JVM. Port
# 8080 on every interface, Quarkus's defaults for the prod profile the jar is built with.
set -eu
exec java ${JAVA_OPTS_APPEND:-} -jar /app/apicurio-registry-app-*-runner.jar
