"""Report Python exceptions to Headspace (Leon) with the standard library only.

    import logging
    from headspace_handler import HeadspaceHandler
    logging.getLogger().addHandler(HeadspaceHandler(
        url="http://127.0.0.1:3000/api/v1/ops/projects/shop/exceptions",
        key="<ingest key>"))

Records at ERROR and above are POSTed as JSON to the plain ingest endpoint by one background
thread (a bounded queue: a slow or absent Headspace never blocks or grows the application; reports
past the queue are dropped). Each POST has a short timeout. `flush()` waits for the queue.
"""

import json
import logging
import os
import queue
import sys
import sysconfig
import threading
import traceback
import urllib.request
import uuid

_LEVELS = {logging.CRITICAL: "fatal", logging.ERROR: "error", logging.WARNING: "warning", logging.INFO: "info"}
# Library code: the standard library and installed packages are not the application's frames.
_LIBRARY_PATHS = tuple(p for p in {sysconfig.get_paths().get("stdlib"), sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib")} if p) + (
    "site-packages",
    "dist-packages",
)


def _clip(text, limit):
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _frames(tb):
    frames = []
    for frame in traceback.extract_tb(tb):  # outermost first, innermost last (as Headspace keeps them)
        frames.append(
            {
                "filename": _clip(os.path.basename(frame.filename), 1024),
                "absPath": _clip(frame.filename, 2048),
                "function": _clip(frame.name, 512),
                "lineno": frame.lineno or 0,
                "contextLine": _clip(frame.line or "", 1024),
                "inApp": not any(part in frame.filename for part in _LIBRARY_PATHS),
            }
        )
    return frames[-200:]


class HeadspaceHandler(logging.Handler):
    def __init__(self, url=None, key=None, environment=None, release=None, timeout=2.0, level=logging.ERROR, queue_size=100):
        super().__init__(level)
        self.url = url or os.environ["HEADSPACE_INGEST_URL"]
        self.key = key or os.environ["HEADSPACE_INGEST_KEY"]
        # Not `self.release`: logging.Handler.release() is the handler's lock.
        self.environment_name = environment or os.environ.get("HEADSPACE_ENVIRONMENT")
        self.release_name = release or os.environ.get("HEADSPACE_RELEASE")
        self.timeout = timeout
        self._queue = queue.Queue(maxsize=queue_size)
        threading.Thread(target=self._send_loop, name="headspace-handler", daemon=True).start()

    def report(self, record):
        report = {
            "eventId": uuid.uuid4().hex,
            "type": "Message",
            "message": _clip(record.getMessage(), 8192),
            "level": _LEVELS.get(record.levelno, "error" if record.levelno > logging.ERROR else "debug"),
            "timestamp": record.created,
            "platform": "python",
            "tags": {"logger": _clip(record.name, 256)},
        }
        if record.exc_info and record.exc_info[1] is not None:
            exc_type, exc, tb = record.exc_info
            report.update(type=_clip(exc_type.__name__, 256), message=_clip(str(exc), 8192), frames=_frames(tb))
        for field, value in (("environment", self.environment_name), ("release", self.release_name)):
            if value:
                report[field] = value
        # Context a caller passes with `extra=`: headspace_request {method, url}, headspace_handled, headspace_tags.
        for field in ("request", "handled", "user"):
            value = getattr(record, "headspace_" + field, None)
            if value is not None:
                report[field] = value
        report["tags"].update(getattr(record, "headspace_tags", {}) or {})
        return report

    def emit(self, record):
        try:
            self._queue.put_nowait(self.report(record))
        except queue.Full:
            pass  # Headspace is slow or down: the application comes first.
        except Exception:
            self.handleError(record)

    def flush(self, timeout=5.0):
        """Waits (at most `timeout` seconds) until every queued report was sent or given up."""
        done = threading.Event()
        threading.Thread(target=lambda: (self._queue.join(), done.set()), daemon=True).start()
        done.wait(timeout)

    def _send_loop(self):
        while True:
            report = self._queue.get()
            try:
                request = urllib.request.Request(
                    self.url,
                    data=json.dumps(report).encode("utf-8"),
                    headers={"Content-Type": "application/json", "X-Headspace-Ingest-Key": self.key},
                    method="POST",
                )
                urllib.request.urlopen(request, timeout=self.timeout).close()
            except Exception as error:  # never raise into the application; say so once per failure
                print("headspace_handler: report not sent: %s" % error, file=sys.stderr)
            finally:
                self._queue.task_done()
