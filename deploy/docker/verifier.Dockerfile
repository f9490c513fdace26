# duocthu verifier: multi-stage build, slim runtime, non-root, no secrets (configuration comes from the environment).
FROM python:3.11-slim AS build
WORKDIR /src
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH PIP_NO_CACHE_DIR=1
COPY contracts contracts
COPY libs libs
COPY services/verifier services/verifier
RUN pip install ./contracts ./libs/text ./libs/runtime ./libs/providers ./services/verifier

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home-dir /var/lib/duocthu --create-home duocthu
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1 VAR_DIR=/var/lib/duocthu LOG_FORMAT=json
ENV HEALTH_HOST=0.0.0.0 HEALTH_PORT=8081
USER 10001
WORKDIR /var/lib/duocthu
EXPOSE 8081
HEALTHCHECK --interval=15s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8081/healthz', timeout=2)" || exit 1
ENTRYPOINT ["python", "-m", "duocthu_verifier.main"]
