"""Settings, all read from the environment.

Two run modes share one code path:
- embedded default (no environment): SQLite in WAL mode and kombu's filesystem broker,
  both under ``var/``; a real Celery worker process consumes the queues;
- production: ``DATABASE_URL=postgres://…`` and ``CELERY_BROKER_URL=redis://…``.
"""

import os
import secrets
from pathlib import Path

import dj_database_url

from evaluation.backends.credentials import parse_credentials
from evaluation.backends.registry import parse_registry

BASE_DIR = Path(__file__).resolve().parents[2]
DATA_DIR = Path(os.environ.get("FALLACY_DATA_DIR", BASE_DIR / "var"))
DATA_DIR.mkdir(parents=True, exist_ok=True)


def env_flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _embedded_secret_key() -> str:
    """A per-installation key kept in var/, so sessions survive restarts."""
    key_file = DATA_DIR / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


DEBUG = env_flag("DJANGO_DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY") or _embedded_secret_key()


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI assets served locally, no CDN
    "simple_history",  # who changed annotations and gold drafts, when, before and after
    "fallacy_platform",
    "annotations",
    "evaluation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A body over the size limits: 413 before it is read (fallacy_platform.uploads).
    "fallacy_platform.uploads.BodySizeMiddleware",
    # A NUL character in a query parameter: 400 naming it, before any view.
    "fallacy_platform.inputs.QueryParameterMiddleware",
    "fallacy_platform.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
]

ROOT_URLCONF = "fallacy_platform.urls"
WSGI_APPLICATION = "fallacy_platform.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "platform" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------
SQLITE_PATH = DATA_DIR / "db.sqlite3"
# Connections are kept (DB_CONN_MAX_AGE seconds), one per server thread: a new one per
# request costs PostgreSQL a server process and a login, and SQLite ~2.5 ms of connection
# set-up (Django registers its SQL functions, the PRAGMAs run) on every request, half of a
# small read (bench/read_api.py). Health checks make a restarted server cost no failed
# request (on PostgreSQL a round trip only when the kept connection's socket is not quiet:
# fallacy_platform.postgresql).
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{SQLITE_PATH}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=env_flag("DB_CONN_HEALTH_CHECKS", True),
    )
}
# SQLite's write-ahead log: SQLite checkpoints it into the database every
# SQLITE_WAL_AUTOCHECKPOINT pages (its default, 1,000 pages: 4 MB), and a checkpoint that
# empties it cuts the file back to SQLITE_JOURNAL_SIZE_LIMIT bytes (the file otherwise keeps
# the size of the largest transaction, a whole import, for good). A large import then
# checkpoints and truncates it at once (``fallacy_platform.wal``).
SQLITE_WAL_AUTOCHECKPOINT = int(os.environ.get("SQLITE_WAL_AUTOCHECKPOINT", "1000"))
SQLITE_JOURNAL_SIZE_LIMIT = int(os.environ.get("SQLITE_JOURNAL_SIZE_LIMIT", str(4 << 20)))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            # WAL lets the web process read while the worker writes.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
            f"PRAGMA wal_autocheckpoint={SQLITE_WAL_AUTOCHECKPOINT}; "
            f"PRAGMA journal_size_limit={SQLITE_JOURNAL_SIZE_LIMIT};",
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
        }
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend with a health check that needs no round trip when the socket is quiet
    DATABASES["default"]["ENGINE"] = "fallacy_platform.postgresql"
    # Server-side binding lets psycopg prepare a statement once it ran DB_PREPARE_THRESHOLD
    # times on a connection: PostgreSQL then skips parsing and planning, half the SQL time of
    # a read (bench/read_api.py). Set it empty behind a pooler that cannot keep prepared
    # statements (PgBouncer in transaction mode before 1.21): Django's client-side binding.
    prepare_threshold = os.environ.get("DB_PREPARE_THRESHOLD", "5").strip()
    if prepare_threshold:
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            {"server_side_binding": True, "prepare_threshold": int(prepare_threshold)}
        )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, so a test's Celery worker process can share the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test-db.sqlite3")}
DATABASE_VENDOR = "sqlite" if "sqlite" in DATABASES["default"]["ENGINE"] else "postgresql"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's default hashers unless PASSWORD_HASHERS lists others (the test run names a fast one
# for its throwaway accounts; production leaves it unset).
if env_list("PASSWORD_HASHERS"):
    PASSWORD_HASHERS = env_list("PASSWORD_HASHERS")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
# Django's cached_db sessions on the default cache; ModelBackend with its per-request user
# read written out as SQL (fallacy_platform.sessions)
SESSION_ENGINE = "fallacy_platform.sessions"
AUTHENTICATION_BACKENDS = ["fallacy_platform.sessions.UserBackend"]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- static files: Django admin + the Vite build of frontend/ -------------------------
STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"  # collectstatic's target in production
STATIC_ROOT.mkdir(exist_ok=True)
FRONTEND_DIST = BASE_DIR / "frontend" / "dist"
STATICFILES_DIRS = [FRONTEND_DIST] if FRONTEND_DIST.exists() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"

# --- invitations and e-mail -------------------------------------------------------------
# A project admin's invitation link is valid this many days (then 410).
INVITATION_MAX_AGE_DAYS = float(os.environ.get("INVITATION_MAX_AGE_DAYS", "7"))
# Invitations are e-mailed only when the operator configured sending: EMAIL_HOST (SMTP) or
# EMAIL_BACKEND (a Django mail backend). Otherwise the admin copies the link.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_flag("EMAIL_USE_TLS", default=not env_flag("EMAIL_USE_SSL"))
EMAIL_USE_SSL = env_flag("EMAIL_USE_SSL")
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "10"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "webmaster@localhost")
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.dummy.EmailBackend"
)
INVITATION_EMAILS = bool(EMAIL_HOST or os.environ.get("EMAIL_BACKEND"))

# --- REST API ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        # DRF's TokenAuthentication in one hand-written query (the API's hot path)
        "fallacy_platform.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON nested too deep, or a string PostgreSQL cannot store (NUL, lone surrogate): 400.
    "DEFAULT_PARSER_CLASSES": [
        "fallacy_platform.inputs.StrictJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Documents DRF's error answers (400/403/404/415/429) on every operation.
    "DEFAULT_SCHEMA_CLASS": "fallacy_platform.schema.AutoSchema",
    # ?limit=/?offset= that are not integers in range are a 400, not a guess or a 500.
    "DEFAULT_PAGINATION_CLASS": "fallacy_platform.api.pagination.StrictLimitOffsetPagination",
    "PAGE_SIZE": 100,
    # Failed logins (session and token) per address and per username and address: a 429 past
    # these; past the per-username bound only the addresses that failed for it get a 429.
    "DEFAULT_THROTTLE_RATES": {
        "login_address": os.environ.get("LOGIN_THROTTLE_ADDRESS", "50/h"),
        "login_username_address": os.environ.get("LOGIN_THROTTLE_USERNAME_ADDRESS", "10/h"),
        "login_username": os.environ.get("LOGIN_THROTTLE_USERNAME", "100/h"),
    },
    # Trusted reverse proxies in front of the app: the client address is the matching
    # X-Forwarded-For entry. 0: REMOTE_ADDR only (a client cannot choose its address).
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES", "0")),
    # Ids and numbers beyond the database's integer range: 404/400, not a 500 (SQLite).
    "EXCEPTION_HANDLER": "fallacy_platform.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Fallacy annotation & evaluation platform API",
    "DESCRIPTION": "Annotate fallacies with alternative labels, adjudicate gold standards, "
    "and score models and humans against them.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # PATCH bodies are validated as given (required fields stay required; no view is partial).
    "COMPONENT_SPLIT_PATCH": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # choice sets whose field name other components use with other choices
    "ENUM_NAME_OVERRIDES": {
        "GenerationJobStatusEnum": "evaluation.models.GenerationJob.Status",
        "ProjectKindEnum": "annotations.items.PROJECT_KINDS",
        "PromptVariantKindEnum": "evaluation.benchmarks.base.VARIANT_KINDS",
    },
}

# --- Celery -----------------------------------------------------------------------------
BROKER_DIR = DATA_DIR / "broker"
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("in", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "in"),
        "data_folder_out": str(BROKER_DIR / "in"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # How often a worker looks for new messages (kombu's default: every second, which a
        # queued import waited for, half a second on average); a look is one directory read.
        "polling_interval": float(os.environ.get("BROKER_POLL_SECONDS", "0.1")),
    }
# Results: Redis in production (same server as the broker unless set), files when embedded.
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or (
    f"file://{DATA_DIR / 'results'}"
    if CELERY_BROKER_URL.startswith("filesystem://")
    else CELERY_BROKER_URL
)
if CELERY_RESULT_BACKEND.startswith("file://"):
    (DATA_DIR / "results").mkdir(parents=True, exist_ok=True)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_DEFAULT_QUEUE = "default"
# Tasks named *.gpu_* go to the GPU workers.
CELERY_TASK_ROUTES = {"*.gpu_*": {"queue": "gpu"}}
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_flag("CELERY_TASK_ALWAYS_EAGER")  # unit tests only

# --- evaluation jobs --------------------------------------------------------------------
# A run's generation is killed past this many seconds (its outputs are kept; it resumes).
EVALUATION_RUN_TIME_LIMIT = int(os.environ.get("EVALUATION_RUN_TIME_LIMIT", 24 * 3600))
# A runner killed by a signal nobody sent (OOM killer, a crash) is restarted this often.
EVALUATION_RUNNER_RESTARTS = int(os.environ.get("EVALUATION_RUNNER_RESTARTS", "2"))
# The Python that runs model runners (default: this one).
EVALUATION_RUNNER_PYTHON = os.environ.get("EVALUATION_RUNNER_PYTHON", "")
# The commit a run records (empty: ``git rev-parse HEAD`` of the checkout).
GIT_COMMIT = os.environ.get("GIT_COMMIT", "")
# Keys for remote model servers, chosen by name by a run (settings.credential): a JSON object
# name -> {"key_env": VARIABLE or "key": KEY, "base_url(s)": the only servers it is sent to}.
MODEL_CREDENTIALS = parse_credentials(os.environ.get("MODEL_CREDENTIALS", ""))
# The model servers a run may address, comma-separated ("*": any but this machine's and
# link-local ones, which only an entry naming them allows). Empty: the credentials' servers
# and OPENAI_BASE_URL.
MODEL_SERVER_ALLOWED_URLS = env_list("MODEL_SERVER_ALLOWED_URLS")
# The local models a project admin may launch by name: a JSON object name -> {"path" or
# "hub_id", "backends"?, "gguf_file"?, "revision"?, "trust_remote_code"? (false)}; the
# packaged SmolLM2 is registered besides. Superusers may also name paths.
MODEL_REGISTRY = parse_registry(os.environ.get("MODEL_REGISTRY", ""))
# Hub ids a project admin may name without registering them, comma-separated fnmatch
# patterns ("HuggingFaceTB/*"); never with remote code. Empty: none.
MODEL_HUB_ALLOWED = env_list("MODEL_HUB_ALLOWED")
# Whether runs may address any server on this machine (127.0.0.1, localhost, ::1) unlisted:
# on in the embedded default (its demo and local model servers), off in production
# (DATABASE_URL set), where a tenant would otherwise probe this machine's other services.
MODEL_SERVER_ALLOW_LOOPBACK = env_flag(
    "MODEL_SERVER_ALLOW_LOOPBACK", not os.environ.get("DATABASE_URL")
)
# Liveness of jobs (run shards, import jobs): the process running one writes its row's
# heartbeat every JOB_HEARTBEAT_SECONDS; every worker sweeps every JOB_SWEEP_SECONDS (and when
# it starts) and fails, resumable, the jobs whose heartbeat is older than JOB_STALE_SECONDS.
JOB_HEARTBEAT_SECONDS = float(os.environ.get("JOB_HEARTBEAT_SECONDS", "10"))
JOB_STALE_SECONDS = float(os.environ.get("JOB_STALE_SECONDS", "90"))
JOB_SWEEP_SECONDS = float(os.environ.get("JOB_SWEEP_SECONDS", "30"))
# A run shard whose worker died goes back to the queue (any worker takes it, skipping what
# was answered) up to JOB_REQUEUE_LIMIT times; then its run fails, resumable.
JOB_REQUEUE_LIMIT = int(os.environ.get("JOB_REQUEUE_LIMIT", "2"))
# Requests per part of a run whose launch names no number of shards (0: the backend's size).
RUN_CHUNK_REQUESTS = int(os.environ.get("RUN_CHUNK_REQUESTS", "0"))
# The worker keeps its running tasks through a lost broker connection and reconnects.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # retry for ever
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_WORKER_CONSUMER = "fallacy_platform.celery:Consumer"
# Jobs keep their state in the database: no task result is stored (the ping tasks' are),
# so the web process needs no result store (a Redis restart would break its subscription).
CELERY_TASK_IGNORE_RESULT = True
# A publish (a launch) fails fast while the broker is down: the API answers 503.
CELERY_BROKER_CONNECTION_TIMEOUT = 2.0
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.4}
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # An unacknowledged job is redelivered after this. Dead workers are found by the
    # heartbeats, not by redelivery; a redelivered job of a live, finished or failed shard
    # does nothing.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", 3600)),
        "socket_connect_timeout": 2,
    }
    # Prefixes every key the broker writes (queues, unacknowledged messages), so that two
    # deployments sharing one Redis database never take each other's jobs.
    if os.environ.get("CELERY_BROKER_KEY_PREFIX"):
        CELERY_BROKER_TRANSPORT_OPTIONS["global_keyprefix"] = os.environ["CELERY_BROKER_KEY_PREFIX"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    # Failed and throttled logins (username and address, never the password).
    "loggers": {"fallacy.auth": {"level": "WARNING"}},
}

# --- request bodies -------------------------------------------------------------------
# Request bodies (fallacy_platform.uploads): an uploaded file (imports, taxonomies) may have
# UPLOAD_MAX_BYTES, any other body and a multipart body's other fields REQUEST_MAX_BYTES;
# a larger one is a 413 before it is read. Files over 2.5 MiB are spooled to temporary files.
UPLOAD_MAX_BYTES = int(os.environ.get("UPLOAD_MAX_BYTES", str(100 * 1024 * 1024)))
# An import file up to this size is imported inside its request; a larger one is queued.
IMPORT_INLINE_MAX_BYTES = 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("REQUEST_MAX_BYTES", str(10 * 1024 * 1024)))
# Archives, Parquet and harness logs are read in a child process under these limits
# (fallacy_platform.bounded); past one, the import fails naming it, nothing imported.
IMPORT_MEMORY_BYTES = int(os.environ.get("IMPORT_MEMORY_BYTES", str(2048 * 1024 * 1024)))
IMPORT_SECONDS = int(os.environ.get("IMPORT_SECONDS", "300"))
IMPORT_TEMP_BYTES = int(os.environ.get("IMPORT_TEMP_BYTES", str(256 * 1024 * 1024)))
IMPORT_MAX_UNPACKED_BYTES = int(os.environ.get("IMPORT_MAX_UNPACKED_BYTES", str(128 * 1024 * 1024)))
IMPORT_MAX_ZIP_MEMBERS = int(os.environ.get("IMPORT_MAX_ZIP_MEMBERS", "1000"))
IMPORT_MAX_ROWS = int(os.environ.get("IMPORT_MAX_ROWS", "1000000"))
IMPORT_MAX_ROW_GROUP_BYTES = int(
    os.environ.get("IMPORT_MAX_ROW_GROUP_BYTES", str(64 * 1024 * 1024))
)
# The longest text (characters) of a record any import takes.
IMPORT_MAX_TEXT_CHARS = int(os.environ.get("IMPORT_MAX_TEXT_CHARS", "100000"))
# An import file (any format) up to this size is parsed in the web or worker process
# itself; a larger one in the bounded child first (its start-up costs more than the parse).
IMPORT_INPROCESS_MAX_BYTES = int(os.environ.get("IMPORT_INPROCESS_MAX_BYTES", str(64 * 1024)))
# ``manage.py serve``'s front server (fallacy_platform/front.py) reads a request's head within
# CLIENT_HEADER_TIMEOUT seconds and its body with no pause longer than CLIENT_BODY_TIMEOUT
# (408 past either) before gunicorn sees the request.
CLIENT_HEADER_TIMEOUT = float(os.environ.get("CLIENT_HEADER_TIMEOUT", "10"))
CLIENT_BODY_TIMEOUT = float(os.environ.get("CLIENT_BODY_TIMEOUT", "15"))
FILE_UPLOAD_HANDLERS = [
    "fallacy_platform.uploads.LimitedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# --- rule-file checks ---------------------------------------------------------------------
# At most this many rule-file checks (swipl, up to ~15 s each) run at once on the whole
# server (all web processes; all hosts sharing a Redis CACHE_URL), one per user; others are a
# 429 with Retry-After at once (evaluation/synthesis/checks.py).
RULE_CHECKS_MAX_CONCURRENT = max(1, int(os.environ.get("RULE_CHECKS_MAX_CONCURRENT", "2")))

# --- cache: login throttles and sessions (shared by every web worker) ---------------------
# CACHE_URL=redis://… in production; files under the data directory otherwise (not
# per-process memory: gunicorn's workers must see the same failed-login counts and the same
# sessions; a session the cache lost is read from the database again).
CACHE_URL = os.environ.get("CACHE_URL", "")
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
    }
elif CACHE_URL.startswith("locmem://"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(DATA_DIR / "cache"),
        }
    }

# Sessions are cached where every web process reads the same cache: Redis, or this host's
# files when all web processes run on one host. Web processes on several hosts without a
# shared Redis CACHE_URL set SESSION_CACHE_SHARED=0: sessions are then read from the
# database alone, so that a logout on one host holds on all of them.
SESSION_CACHE_SHARED = CACHE_URL.startswith(("redis://", "rediss://")) or env_flag(
    "SESSION_CACHE_SHARED", default=True
)

# The shared datasets ``load_demo`` reads (MAFALDA, FLUB): ../shared/datasets by default.
SHARED_DATASETS_DIR = Path(
    os.environ.get("FALLACY_SHARED_DATASETS", BASE_DIR.parent / "shared" / "datasets")
)

# --- security -------------------------------------------------------------------------------
# The Django admin's URL (without a leading slash); another path than admin/ keeps it out of
# the way of scanners.
ADMIN_URL = os.environ.get("ADMIN_URL", "admin/").strip("/") + "/"

# Content-Security-Policy (fallacy_platform.security): scripts only from this origin, never
# inline; the app's styles are files (React sets style properties through the CSSOM).
CONTENT_SECURITY_POLICY = os.environ.get("CONTENT_SECURITY_POLICY") or "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

if not DEBUG:
    SESSION_COOKIE_HTTPONLY = True
    CSRF_COOKIE_HTTPONLY = False  # the frontend reads it to send X-CSRFToken
    X_FRAME_OPTIONS = "DENY"
    SECURE_CONTENT_TYPE_NOSNIFF = True

# FALLACY_HTTPS=1 (docker-compose.yml): served over HTTPS by a TLS-terminating proxy that
# sets X-Forwarded-Proto. Plain http is then redirected, cookies are Secure and browsers are
# told (HSTS) to use https only. Off by default: `make demo` serves plain http on 127.0.0.1.
HTTPS = env_flag("FALLACY_HTTPS")
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_flag("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_flag("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_flag("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
