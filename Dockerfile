# aiperf and aiperf-kube as static binaries on a distroless base: the image `aiperf kube` runs as
# the controller pod (/aiperf profile ... --workers N --worker-listen :7070), the load-worker pods
# (/aiperf cluster-worker --controller HOST:PORT) and the operator (/aiperf kube operator, which
# runs /aiperf-kube next to it). Build: docker build -t REGISTRY/aiperf:TAG .
FROM golang:1.26.8 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w" -o /out/ ./cmd/aiperf ./cmd/aiperf-kube

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/aiperf /aiperf
COPY --from=build /out/aiperf-kube /aiperf-kube
# 65532 is distroless' nonroot user, the runAsUser of the generated pods.
USER 65532:65532
ENTRYPOINT ["/aiperf"]
