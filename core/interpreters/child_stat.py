# What a cached probe's fingerprint reads of an interpreter's files (core.interpreters.probe):
# imported for an interpreter of this machine; for one inside WSL it runs there, passed with
# ``python -c SOURCE '[[PATH, SITE...], [SITE...]]'``, and prints one marked JSON line with the
# variables the probe children saw there. Any CPython 3.6+ (no newer syntax).
import json
import os
import sys

MARK = "@@tensordeck-probe@@ "
#: The distributions whose reinstall in place a fingerprint must notice (dist-info names).
FINGERPRINTED = ("tensorflow", "tf_nightly", "keras", "tf_keras")
#: The variables that decide which native libraries TF finds.
LIBRARY_VARIABLES = ("PATH", "LD_LIBRARY_PATH", "CUDA_PATH")


def stat_parts(paths, site_packages):
    """Each path's mtime and size; the TF dist-info folders' own mtimes in ``site_packages``."""
    parts = []
    for path in paths:
        try:
            st = os.stat(path)
            parts.append(f"{path}:{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append(f"{path}:missing")
    for folder in site_packages:
        try:
            names = sorted(
                n
                for n in os.listdir(folder)
                if n.lower().startswith(FINGERPRINTED) and n.endswith(".dist-info")
            )
        except OSError:
            continue
        parts += [f"{n}:{os.stat(os.path.join(folder, n)).st_mtime_ns}" for n in names]
    return parts


if __name__ == "__main__":
    wanted, folders = json.loads(sys.argv[1])
    found = stat_parts(wanted, folders)
    found += [f"{name}={os.environ.get(name, '')}" for name in LIBRARY_VARIABLES]
    print(MARK + json.dumps(found))
