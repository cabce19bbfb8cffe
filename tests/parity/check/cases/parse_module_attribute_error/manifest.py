import os
import sys

manifest = {"manifest_version": 1, "device_name": "auto", "capabilities": {}}

# A name the standard-library module has in no CPython 3.10-3.13: AttributeError at load time.
separator = os.path.sep
sys.exitt(0)
