# polycodec: multi-stage image on debian:bookworm-slim.
#   docker build -t polycodec .            (or: buildah bud --format docker -t polycodec .)
#   docker run -p 8080:8080 -p 9090:9090 polycodec
# The build stage uses the project's own dependency script and CMake preset, as the README
# and CI do, and runs the unit tests.

FROM debian:bookworm-slim AS build
WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
COPY tests/differential/package.json tests/differential/package-lock.json tests/differential/
RUN apt-get update -qq && scripts/deps.sh --build && rm -rf /var/lib/apt/lists/*
COPY . .
# .git is not in the build context: the commit comes in as a build argument.
ARG POLYCODEC_COMMIT=unknown
RUN cmake --preset release -DPOLYCODEC_BUILD_TESTS=ON -DPOLYCODEC_COMMIT="$POLYCODEC_COMMIT" \
 && cmake --build --preset release -j "$(nproc)" --target polycodec polycodec-loadtest polycodec_tests \
 && build/release/tests/polycodec_tests --gtest_brief=1 \
 && strip build/release/server/polycodec build/release/loadtest/polycodec-loadtest

FROM debian:bookworm-slim AS runtime
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      libsimdjson14 libyaml-0-2 libtomlplusplus3 libspdlog1.10 libfmt9 \
      libprometheus-cpp-core1.0 libssl3 curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 polycodec \
 && useradd --system --uid 10001 --gid polycodec --no-create-home polycodec
COPY --from=build /src/build/release/server/polycodec /usr/local/bin/polycodec
COPY --from=build /src/build/release/loadtest/polycodec-loadtest /usr/local/bin/polycodec-loadtest
COPY --from=build /src/fixtures /usr/share/polycodec/fixtures
USER polycodec
ENV POLYCODEC_HTTP_PORT=8080 \
    POLYCODEC_TCP_PORT=9090 \
    POLYCODEC_LOG_FORMAT=text \
    POLYCODEC_LOG_LEVEL=info
EXPOSE 8080 9090
# With POLYCODEC_TLS_CERT set the port speaks HTTPS (not verified here: it is the container's
# own loopback). Under mutual TLS (POLYCODEC_TLS_CLIENT_CA) curl has no client certificate:
# set --health-cmd or use the orchestrator's probes instead.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD if [ -n "$POLYCODEC_TLS_CERT" ]; then curl -fsSk https://127.0.0.1:8080/healthz; \
      else curl -fsS http://127.0.0.1:8080/healthz; fi || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["polycodec"]
CMD ["serve"]
