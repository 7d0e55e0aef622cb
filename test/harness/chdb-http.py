"""ClickHouse's HTTP interface over chDB, a current ClickHouse engine in-process (PyPI chdb-core).

The modern-ClickHouse test (test/int/backbone/modern-clickhouse.int.test.ts) points the platform's
own ClickHouse client (@clickhouse/client, platform/clickhouse.ts) at this server, so every
migration and query runs on ClickHouse 26 exactly as the platform sends it to 18.16: the same SQL
text, the same settings in the URL, the same gzip-compressed inserts.

Only what the platform's client uses is served: `GET /ping`, and `POST /` with the query in the body
(or in `?query=`, the body then being its data, as inserts send it: chDB reads that data from a
file, `FROM INFILE`, so binary formats such as RowBinary arrive as sent), `database`, `query_id`,
`default_format` and settings in the URL. Query parameters (`param_*`) and sessions are refused:
18.16 has no query parameters, and the platform uses no sessions. One chDB session serves every
request, one at a time.

Run with the project's Python (.venv/bin/python, made by infra/bootstrap.mjs): it prints
`listening <port> <engine version>` once it answers, and exits when its standard input closes, so
it never outlives the test that started it.
"""

import gzip
import json
import os
import re
import sys
import tempfile
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

try:
    import chdb
    from chdb.session import Session
except ImportError as error:
    sys.stderr.write(f"chdb-core is not installed in {sys.prefix}: {error}\n")
    sys.exit(3)

# URL parameters of the HTTP interface that are not settings.
HTTP_PARAMETERS = {"query", "query_id", "database", "default_format", "wait_end_of_query"}
REFUSED_PARAMETERS = {"session_id", "session_timeout", "session_check", "role"}
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CODE = re.compile(r"Code: (\d+)\.")
INSERT_FORMAT = re.compile(r"^(.*\S)\s+FORMAT\s+(\w+)\s*$", re.DOTALL | re.IGNORECASE)

session = Session()
lock = threading.Lock()


def quote(value):
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


class QueryError(Exception):
    def __init__(self, message, code="0", status=500):
        super().__init__(message)
        self.code = code
        self.status = status


def refuse(message):
    # 115 UNKNOWN_SETTING, 36 BAD_ARGUMENTS: what the real server says about what it does not know.
    raise QueryError(f"Code: 36. DB::Exception: {message}. (BAD_ARGUMENTS)", "36", 400)


def run(query, database, settings, output_format):
    """Runs one statement with the request's database and settings, then puts the settings back."""
    with lock:
        applied = []
        try:
            # As the server: the request's database, else `default` (never the previous request's).
            session.query(f"USE {database or 'default'}")
            for name, value in settings.items():
                session.query(f"SET {name} = {quote(value)}")
                applied.append(name)
            return session.query(query, output_format)
        except Exception as error:  # chDB raises ChdbError (a RuntimeError) with the server's text
            message = str(error)
            match = CODE.search(message)
            raise QueryError(message, match.group(1) if match else "0") from None
        finally:
            for name in applied:
                session.query(f"SET {name} = DEFAULT")


def run_with_data(query, data, database, settings, output_format):
    """An INSERT whose data is the request body, in whatever format it names: read from a file."""
    match = INSERT_FORMAT.match(query)
    if not match:
        refuse("data in the body needs a query ending in FORMAT <name>")
    with tempfile.NamedTemporaryFile(suffix=".data") as file:
        file.write(data)
        file.flush()
        statement = f"{match.group(1)} FROM INFILE {quote(file.name)} FORMAT {match.group(2)}"
        return run(statement, database, settings, output_format)


def read_body(handler):
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                break
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
        body = b"".join(chunks)
    else:
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
    encoding = handler.headers.get("Content-Encoding", "").lower()
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    if encoding not in ("", "identity"):
        refuse(f"Content-Encoding {encoding} is not served here")
    return body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "chdb-http"

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass

    def reply(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = urlsplit(self.path).path
        if path in ("/ping", "/"):
            self.reply(200, b"Ok.\n", [("Content-Type", "text/plain; charset=UTF-8")])
        else:
            self.reply(404, b"not found\n")

    def do_POST(self):
        try:
            url = urlsplit(self.path)
            if url.path != "/":
                refuse(f"only / is served, not {url.path}")
            parameters = dict(parse_qsl(url.query, keep_blank_values=True))
            body = read_body(self)
            for name in parameters:
                if name.startswith("param_"):
                    refuse(f"query parameters ({name}) are not allowed: ClickHouse 18.16 has none")
                if name in REFUSED_PARAMETERS:
                    refuse(f"{name} is not served here; the platform uses no sessions or roles")
            settings = {k: v for k, v in parameters.items() if k not in HTTP_PARAMETERS}
            for name in settings:
                if not NAME.match(name):
                    refuse(f"not a setting name: {name}")
            database = parameters.get("database", "")
            if database and not NAME.match(database):
                refuse(f"not a database name: {database}")
            output_format = parameters.get("default_format") or "TabSeparated"
            if "query" in parameters and body:
                result = run_with_data(parameters["query"], body, database, settings, output_format)
            else:
                query = parameters["query"] + "\n" + body.decode("utf-8") if "query" in parameters else body.decode("utf-8")
                result = run(query, database, settings, output_format)
            summary = {
                "read_rows": str(result.rows_read()),
                "read_bytes": str(result.bytes_read()),
                "written_rows": str(result.rows_written()),
                "written_bytes": str(result.bytes_written()),
                "elapsed_ns": str(int(result.elapsed() * 1e9)),
            }
            self.reply(
                200,
                result.bytes(),
                [
                    ("Content-Type", "text/plain; charset=UTF-8"),
                    ("X-ClickHouse-Query-Id", parameters.get("query_id", "")),
                    ("X-ClickHouse-Summary", json.dumps(summary)),
                ],
            )
        except Exception as caught:  # noqa: BLE001 (every failure is answered as the server would)
            error = caught if isinstance(caught, QueryError) else QueryError(f"Code: 1000. {caught!r}", "1000")
            message = str(error).rstrip("\n") + "\n"
            self.reply(
                error.status,
                message.encode("utf-8"),
                [("Content-Type", "text/plain; charset=UTF-8"), ("X-ClickHouse-Exception-Code", error.code)],
            )


def exit_when_stdin_closes():
    sys.stdin.read()
    os._exit(0)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    print(f"listening {server.server_address[1]} {chdb.engine_version}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
