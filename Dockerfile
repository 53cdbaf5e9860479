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
# The build stage makes the Debian packages (cpack, as scripts/package does); the runtime
# stage installs polycodec_*.deb with apt, which resolves its Depends (dpkg-shlibdeps); the
# package also holds the fixtures in /usr/share/polycodec/fixtures (the load test's data).
ARG POLYCODEC_COMMIT=unknown
RUN cmake --preset release -DPOLYCODEC_BUILD_TESTS=ON -DPOLYCODEC_COMMIT="$POLYCODEC_COMMIT" \
 && cmake --build --preset release -j "$(nproc)" --target polycodec polycodec-loadtest \
      polycodec-man polycodec-loadtest-man polycodec_tests \
 && build/release/tests/polycodec_tests --gtest_brief=1 \
 && (cd build/release && cpack -G DEB) \
 && dpkg-deb --field build/release/packages/polycodec_*.deb Depends

FROM debian:bookworm-slim AS runtime
COPY --from=build /src/build/release/packages/polycodec_*.deb /tmp/
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends /tmp/polycodec_*.deb curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* /tmp/polycodec_*.deb \
 && polycodec formats \
 && polycodec-loadtest --help >/dev/null \
 && groupadd --system --gid 10001 polycodec \
 && useradd --system --uid 10001 --gid polycodec --no-create-home polycodec
USER polycodec
ENV POLYCODEC_HTTP_PORT=8080 \
    POLYCODEC_TCP_PORT=9090 \
    POLYCODEC_LOG_FORMAT=text \
    POLYCODEC_LOG_LEVEL=info
EXPOSE 8080 9090
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["polycodec"]
CMD ["serve"]
