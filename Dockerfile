# aiperf as a static binary on a distroless base: the image `aiperf kube` runs as both the
# controller pod (/aiperf profile ... --workers N --worker-listen :7070) and the load-worker pods
# (/aiperf cluster-worker --controller HOST:PORT). Build: docker build -t REGISTRY/aiperf:TAG .
FROM golang:1.26.8 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w" -o /aiperf ./cmd/aiperf

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /aiperf /aiperf
# 65532 is distroless' nonroot user, the runAsUser of the generated pods.
USER 65532:65532
ENTRYPOINT ["/aiperf"]
