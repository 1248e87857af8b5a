"""A tiny Flask app with a bug, reporting its 500s to Headspace through the stdlib handler.

    HEADSPACE_INGEST_URL=http://127.0.0.1:3000/api/v1/ops/projects/shop/exceptions \
    HEADSPACE_INGEST_KEY=<ingest key> python3 flask_app.py --port 5050
    curl http://127.0.0.1:5050/orders/42      # 500, and the KeyError arrives in Leon
"""

import argparse
import logging

from flask import Flask, got_request_exception, request

from headspace_handler import HeadspaceHandler

app = Flask(__name__)
ORDERS = {"1": {"total": 10}}

reporter = logging.getLogger("shop.errors")
reporter.addHandler(HeadspaceHandler(environment="example", release="shop@1.0.0"))
reporter.propagate = False


def report_exception(sender, exception, **extra):
    # got_request_exception fires for every unhandled exception, before Flask answers 500.
    reporter.error(
        "unhandled exception",
        exc_info=(type(exception), exception, exception.__traceback__),
        extra={"headspace_handled": False, "headspace_request": {"method": request.method, "url": request.url}},
    )


got_request_exception.connect(report_exception, app)


@app.route("/health")
def health():
    return "ok"


@app.route("/orders/<order_id>")
def order(order_id):
    return {"total": ORDERS[order_id]["total"]}  # the bug: an unknown id is a KeyError, not a 404


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=5050)
    app.run(host="127.0.0.1", port=parser.parse_args().port)
