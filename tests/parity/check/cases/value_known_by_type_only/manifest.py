import sys
import torch

# Values known by their type only (sys.argv is the command line check-manifest runs with):
# a comparison is a bool and len() an int, whatever they hold. A type alone decides some
# rules (a bool is no integer, an int no boolean) and not others (an int's sign).
manifest = {
    "manifest_version": 1,
    "device_name": sys.argv == [],
    "capabilities": {"inference": sys.argv is None, "compile": len(sys.argv)},
    "device_count": len(sys.argv) != 1,
    "max_samples": len(sys.argv),
    "ieee754_seed": sys.argv != ["first"],
}
