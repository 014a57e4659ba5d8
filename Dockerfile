# One Tortuga server node. The production shape (docker-compose.yml) runs two behind nginx.
FROM python:3.11-slim
RUN pip install --no-cache-dir uv
WORKDIR /app
COPY pyproject.toml uv.lock README.md ./
COPY engines engines
COPY server server
COPY migrations migrations
COPY web-client web-client
RUN uv sync --locked --no-dev
ENV TORTUGA_HOST=0.0.0.0 TORTUGA_PORT=8000 TORTUGA_DATA_DIR=/data
EXPOSE 8000
CMD ["uv", "run", "--no-dev", "tortuga", "serve"]
