"""The same kind of app keeping the Sentry SDK it already has: only the DSN points at Headspace.

    SENTRY_DSN=http://<ingest key>@127.0.0.1:3000/<project id> python3 flask_sentry_app.py --port 5051
    curl http://127.0.0.1:5051/ratio/0      # 500, and the ZeroDivisionError arrives in Leon
"""

import argparse
import os

import sentry_sdk
from flask import Flask
from sentry_sdk.integrations.flask import FlaskIntegration

sentry_sdk.init(dsn=os.environ["SENTRY_DSN"], integrations=[FlaskIntegration()], environment="example", release="ratio@2.0.0")

app = Flask(__name__)


@app.route("/health")
def health():
    return "ok"


@app.route("/ratio/<int:n>")
def ratio(n):
    return {"ratio": 100 / n}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=5051)
    app.run(host="127.0.0.1", port=parser.parse_args().port)
