# fiscal-report's image: the binary (with its default queries and templates built in, copies in
# /opt/fiscal-report to read or mount over), CA roots for HTTPS to the registry and the buckets,
# and a non-root user. Build:   docker build -t fiscal-report .   (or buildah bud, podman build)
# With a browser for report.pdf (adds ~300 MB):   --build-arg WITH_PDF=1
# deploy/kubernetes/ and deploy/airflow/ name this image.

FROM docker.io/library/rust:1.95-slim-bookworm AS build
WORKDIR /src
# What the build reads, no more (.dockerignore keeps target/ and outputs out of the context).
COPY Cargo.toml Cargo.lock build.rs ./
# The allocator's options (.cargo/config.toml), built into the binary as on every other build.
COPY .cargo .cargo
COPY src src
COPY crates crates
COPY bench bench
COPY queries queries
COPY templates templates
COPY codes codes
RUN cargo build --release --locked --bin fiscal-report \
    && strip target/release/fiscal-report

FROM docker.io/library/debian:bookworm-slim
ARG WITH_PDF=0
# hadolint ignore=DL3008 - Debian's stable security updates are what this image should get
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && if [ "$WITH_PDF" = "1" ]; then apt-get install -y --no-install-recommends chromium fonts-dejavu-core; fi \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --home-dir /work --create-home fiscal
COPY --from=build /src/target/release/fiscal-report /usr/local/bin/fiscal-report
COPY --from=build /src/queries /opt/fiscal-report/queries
COPY --from=build /src/templates /opt/fiscal-report/templates
# Outputs, staging and object-storage work dirs go under /work (mount a volume, or an
# emptyDir when the outputs go to a bucket).
WORKDIR /work
USER 10001:10001
ENTRYPOINT ["/usr/local/bin/fiscal-report"]
CMD ["--help"]
