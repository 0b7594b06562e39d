# Runs inside the probed interpreter, passed with ``python -c``: the real `import tensorflow`.
# Whatever happens, stderr keeps TF's own log; stdout ends with one marked JSON line, unless
# the process dies (a crash is the parent's to describe).
import json
import sys
import time
import traceback

MARK = "@@tensordeck-probe@@ "
out = {}  # type: dict[str, object]  # a comment: this runs on Python 3.7 too
started = time.time()
try:
    import tensorflow as tf

    out["import_seconds"] = time.time() - started
    out["tf_version"] = tf.__version__
    try:
        out["keras_version"] = tf.keras.__version__  # the Keras TF really uses (2, 3, tf-keras)
    except Exception as exc:
        out["keras_error"] = f"{type(exc).__name__}: {exc}"
    devices = tf.config.list_physical_devices()
    out["devices"] = [f"{d.name} ({d.device_type})" for d in devices]
    out["gpus"] = [d.name for d in devices if d.device_type == "GPU"]
    out["built_with_cuda"] = tf.test.is_built_with_cuda()
except BaseException as exc:  # SystemExit from a broken package counts too
    out["import_seconds"] = time.time() - started
    out["import_error"] = f"{type(exc).__name__}: {exc}"
    traceback.print_exc()
    sys.stderr.flush()
    print(MARK + json.dumps(out))
    sys.exit(1)
sys.stderr.flush()
print(MARK + json.dumps(out))
