#!/usr/bin/env python3
"""Extract the manifest-independent inventory of the TorchCTS suite.

Run it with the Python of an environment where torchcts and torch are installed:

    nice -n 19 /work/tv/venv/bin/python tools/inventory/extract_inventory.py \
        --out tools/inventory/out/inventory-torchcts-0.4.1-torch-2.12.1.json.gz

It writes a maximal manifest (every dtype, every capability, device_count 64, every
container format) into a scratch folder, drives pytest collection of the whole suite
in-process exactly as `torchcts show-skips` does (same test paths, `--collect-only`),
and with a plugin snapshots every collected item before torchcts' own
`pytest_collection_modifyitems` runs.  For each item it records the facts that the
collection rules of conftest.py need (see docs/inventory.md), evaluating the CPU
contract and CPU probe parts with torchcts' own functions, and the device-dependent
rules for a fixed list of device names.  It also records the OpInfo tables that the
OpInfo modules generate their parameters from at import time.

The format is documented in docs/inventory.md.  It takes 15-25 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import json
import os
import platform
import sys
import tempfile
import time
import traceback

FORMAT_VERSION = 1

# Device names for which the device-dependent rules are evaluated.  "my_backend"
# stands for any name that torch.device() rejects and that is not importable.
DEVICES = ["cpu", "cuda", "mps", "xpu", "meta", "xla", "hpu", "privateuseone", "my_backend"]

_T0 = time.time()


def log(msg: str) -> None:
    print(f"[{time.time() - _T0:7.1f}s] {msg}", file=sys.stderr, flush=True)


def dtype_list(torch):
    """Every dtype a manifest can usefully name, in a stable order."""
    from torchcts.core.opinfo_adapter import DTYPE_TO_STR

    out = list(DTYPE_TO_STR.keys())
    for name in ("uint16", "uint32", "uint64", "float8_e8m0fnu"):
        dt = getattr(torch, name, None)
        if isinstance(dt, torch.dtype) and dt not in out:
            out.append(dt)
    return out


def maximal_manifest_source(torch) -> str:
    from torchcts.core.manifest_schema import CAPABILITY_ORDER
    from torchcts.core.quantized_decoders import KNOWN_CONTAINER_FORMATS

    dts = ",\n".join(f"        torch.{str(dt).replace('torch.', '')}: True" for dt in dtype_list(torch))
    caps = ",\n".join(f"        {c!r}: True" for c in CAPABILITY_ORDER)
    fmts = ",\n".join(f"        {f!r}: True" for f in sorted(KNOWN_CONTAINER_FORMATS))
    decs = ",\n".join(f"        {f!r}: 'inventory_decoder:decode'" for f in sorted(KNOWN_CONTAINER_FORMATS))
    return f"""import torch

manifest = {{
    "manifest_version": 1,
    "device_name": "cpu",
    "backend_import": None,
    "supported_dtypes": {{
{dts},
    }},
    "device_count": 64,
    "ieee754_seed": 67,
    "semantic_level": 8,
    "hardware": {{"memory_model": "discrete", "device_memory_gb": 1024, "system_memory_gb": 1024, "oom_recoverable": True}},
    "resource_limits": {{"max_tensor_size_mb": None}},
    "capabilities": {{
{caps},
    }},
    "skip_ops": [],
    "supported_container_formats": {{
{fmts},
    }},
    "custom_container_decoders": {{
{decs},
    }},
    "custom_test_dirs": [],
}}
"""


class Strings:
    """Interning table: long, repeated strings (details, ops, files) become indices."""

    def __init__(self, seed=()):
        # Seeding with another inventory's table keeps the indices of shared strings
        # stable across torch versions, so per-version deltas stay small.
        self.index = {}
        self.items = []
        for text in seed:
            self(text)

    def __call__(self, s):
        if s is None:
            return None
        s = str(s)
        i = self.index.get(s)
        if i is None:
            i = len(self.items)
            self.index[s] = i
            self.items.append(s)
        return i


class InventoryPlugin:
    def __init__(self):
        self.items = None
        self.collect_files = 0
        self.last_log = 0.0
        self.error = None
        self.result = None
        self.args = None
        self.version = None

    # Progress while collecting: one line per test module (imports are the slow part).
    def pytest_collectstart(self, collector):
        import pytest

        if isinstance(collector, pytest.Module):
            self.collect_files += 1
            log(f"collecting module {self.collect_files}: {collector.nodeid}")

    def pytest_collectreport(self, report):
        if report.failed:
            log(f"COLLECTION ERROR in {report.nodeid}: {str(report.longrepr)[:2000]}")

    @staticmethod
    def _hookimpl():
        import pytest

        return pytest.hookimpl(tryfirst=True)

    def pytest_collection_modifyitems(self, session, config, items):
        # Runs before torchcts' own hook (plugins passed to pytest.main are registered
        # first and this is wrapped with tryfirst).
        self.items = list(items)
        if self.args is not None and self.args.only:
            import re

            self.items = [i for i in self.items if re.search(self.args.only, i.nodeid)]
        log(f"collected {len(items)} items; snapshot taken")
        if self.args is not None and self.args.metadata_into:
            # The metadata needs nothing torchcts' own hook computes: take it now and leave
            # that hook (the rule chain and its CPU probes, minutes) nothing to do.
            try:
                self.result = add_match_metadata(self.items, self.args)
            except Exception:
                self.error = traceback.format_exc()
                log(self.error)
            items[:] = []

    pytest_collection_modifyitems = __import__("pytest").hookimpl(tryfirst=True)(pytest_collection_modifyitems)

    # Facts are computed while pytest is still configured: the legacypath plugin
    # that gives items their `fspath` (used by torchcts) is undone at unconfigure.
    def pytest_collection_finish(self, session):
        if self.items is None:
            return
        try:
            if self.args.metadata_into:
                return
            self.result = build_inventory(self.items, self.args, self.version)
        except Exception:
            self.error = traceback.format_exc()
            log(self.error)


def _contract_result(reason_detail):
    reason, detail = reason_detail
    if not reason:
        return None
    return [reason, detail]


class _LedgerNode:
    """What `match_known_segfault` reads of an item: its node id."""

    def __init__(self, nodeid):
        self.nodeid = nodeid


def ledger_nodeid(nodeid):
    """The node id as torchcts' ledger sees it in a real run: `torchcts/<package path>`."""
    from torchcts.core.known_segfaults import canonicalize_nodeid

    canonical = canonicalize_nodeid(nodeid)
    return canonical if canonical.startswith("torchcts/") else "torchcts/" + canonical



# What torchcts' ledger matchers read of an item's metadata (`MATCH_METADATA_KEYS`), as short
# keys of the inventory's `match_metadata` (semantic_level is the item's `lvl`).
MATCH_METADATA_SHORT = {
    "dispatcher_name": "dn",
    "coverage_id": "ci",
    "surface_kind": "sk",
    "variant_kind": "vk",
    "coverage_status": "cs",
    "strategy": "st",
    "strategy_family": "sf",
    "dtype": "dt",
}


def match_metadata(C, item, suite, S=str):
    """The item's match metadata (`conftest._extract_result_metadata`, as the ledger reads
    it), compactly: only non-null values, strings as text (kept out of the `strings` table,
    so that adding metadata leaves the rest of an inventory as it was); `suite` only where it differs
    from the item's own `suite`, `tk: 1` for test_kind `opinfo`, `ck` only where
    coverage_kind is not the default the engine derives (opinfo / generated /
    handwritten). `mf: 1`: the dtype is the manifest's when its `dtype_filter` has one
    entry (a parametrized item with no dtype, dtype_str or path-shape case parameter);
    the metadata computed here comes from the maximal manifest, which has none."""
    md = C._extract_result_metadata(item)
    out = {}
    if md.get("suite") != suite:
        out["su"] = S(md.get("suite"))
    opinfo = md.get("test_kind") == "opinfo"
    if opinfo:
        out["tk"] = 1
    default_kind = "opinfo" if opinfo else "generated" if md.get("suite") == "generated" else "handwritten"
    if md.get("coverage_kind") != default_kind:
        out["ck"] = S(md.get("coverage_kind"))
    for key, short in MATCH_METADATA_SHORT.items():
        if md.get(key) is not None:
            out[short] = S(md[key])
    params = item.callspec.params if hasattr(item, "callspec") else None
    if params is not None and "dtype" not in params and "dtype_str" not in params and not isinstance(
        params.get("path_shape_case"), dict
    ):
        if md.get("dtype") is not None:
            raise RuntimeError(f"{item.nodeid}: a dtype without a dtype parameter: {md.get('dtype')!r}")
        out["mf"] = 1
    return out


def torchcts_release():
    """The installed torchcts release as a tuple, e.g. (0, 4, 1)."""
    from importlib.metadata import version as _v

    return tuple(int(p) for p in _v("torchcts").split(".")[:3] if p.isdigit())


def exemption_gates_dtype_contracts():
    """Whether a CPU-contract-exempt item skips the dtype-contract rules (1 and 3).

    torchcts 0.4.1's conftest checks `contract_exempt_reason is None` there; 0.4.0's does not
    (it applies the contract to exempt items too). The engine reads only the facts, so the
    switch lives here."""
    return torchcts_release() >= (0, 4, 1)


def clean_only_generated_families():
    """`sample_generation._CLEAN_ONLY_GENERATED_FAMILIES` where torchcts has it (0.4.1+:
    families generated without NaN/Inf tiers); 0.4.0 has no such families."""
    try:
        from torchcts.sample_generation import _CLEAN_ONLY_GENERATED_FAMILIES
    except ImportError:
        return frozenset()
    return _CLEAN_ONLY_GENERATED_FAMILIES


def backward_reference_check():
    """`has_opinfo_backward_reference` where torchcts has it (0.4.1+: an op with a backward
    reference is not probed for its backward CPU contract); 0.4.0 probes every op."""
    try:
        from torchcts.core.backward_references import has_opinfo_backward_reference
    except ImportError:
        return lambda op_name, dtype: False
    return has_opinfo_backward_reference


def compute_item_facts(C, items, S, torch, all_dtypes):
    """Per item facts. C is the torchcts.conftest module."""
    exemption_gates = exemption_gates_dtype_contracts()
    from torchcts.core.opinfo_adapter import dtype_to_str, str_to_dtype
    from torchcts.core.dtype_contracts import contract_disposition
    from torchcts.core.device import get_device_module
    import torchcts.generated.coverage_helpers as CH
    from torchcts.core.oracles import oracle_collection_skip_for_surface
    from torchcts.core.known_segfaults import active_known_segfaults, load_known_segfaults
    from torchcts.core.report import get_hardware_key

    manifest = C._MANIFEST
    records = []
    gen_entries = {}  # entry key -> generated facts index
    gen_list = []
    dtype_names = [dtype_to_str(d) for d in all_dtypes]

    # Known-segfault rules active per device.
    ks_entries = load_known_segfaults(os.getcwd())
    ks_active = {}
    for dev in DEVICES:
        try:
            hk = get_hardware_key(dev, manifest)
        except Exception:
            hk = "unknown"
        try:
            ks_active[dev] = active_known_segfaults(ks_entries, backend=dev, torch_version=torch.__version__, hardware_key=hk)
        except Exception as exc:
            log(f"known segfaults for {dev}: {exc}")
            ks_active[dev] = []

    def device_facts(item, op_name, params):
        out = {}
        saved_dev = C._DEVICE_NAME
        saved_ks = (C._KNOWN_SEGFAULT_POLICY, C._KNOWN_SEGFAULTS_ACTIVE)
        try:
            for dev in DEVICES:
                C._DEVICE_NAME = dev
                facts = []
                # rule 0: backend gate / path-shape expectation
                try:
                    g = C._backend_gate_collection_skip_for_item(item, op_name)
                except Exception as exc:
                    g = ("__error__", str(exc))
                if g:
                    facts.append(["gate", g[0], S(g[1])])
                test_name = item.name
                # rule 6
                if dev == "cpu":
                    if "test_error_handling_cross_device" in test_name:
                        facts.append(["cpu", "cpu_not_applicable", S("cross-device error checks not applicable on CPU")])
                    elif "test_device_module_methods" in test_name or "test_device_memory_query" in test_name:
                        facts.append(["cpu", "cpu_not_applicable", S("device module tests not applicable on CPU")])
                # rule 7
                if hasattr(item, "callspec") and (
                    "test_device_module_methods" in test_name or "test_device_memory_query" in test_name
                ):
                    if get_device_module(dev) is None:
                        facts.append(["mod", "no_device_module", S(f"No custom device module found for torch.{dev}")])
                # rule 8
                if "test_set_device_context" in test_name:
                    _mod = torch.cuda if dev == "cuda" else getattr(torch, dev, None)
                    if _mod is None or not hasattr(_mod, "set_device"):
                        facts.append(["setdev", "set_device_not_supported", S(f"Device module for {dev} does not support set_device")])
                # rule 11
                if dev == "mps" and op_name == "index_reduce" and params.get("input_condition") == "has_nan":
                    facts.append(["mpsbug", "framework_bug", S("index_reduce hangs infinitely on MPS when input/destination contains NaN (CAS loop GPU thread deadlock)")])
                # rule 14
                if ks_active.get(dev):
                    C._KNOWN_SEGFAULT_POLICY = "isolate"
                    C._KNOWN_SEGFAULTS_ACTIVE = ks_active[dev]
                    try:
                        from torchcts.core.known_segfaults import match_known_segfault

                        # The ledger's `nodeid_glob` constraints name package paths
                        # (`torchcts/generated/...`). A real run's node ids contain
                        # `/torchcts/` (rootdir above the package), ours are relative to
                        # the package, so torchcts' canonicalisation would miss them.
                        m = match_known_segfault(
                            _LedgerNode(ledger_nodeid(item.nodeid)),
                            ks_active[dev],
                            metadata=C._extract_result_metadata(item),
                        )
                    except Exception as exc:
                        m = None
                        log(f"known segfault match failed for {item.nodeid}: {exc}")
                    if m and C._known_segfault_record_without_execution(m):
                        facts.append(["crash", "known_backend_crash", S("known confirmed backend crash recorded without executing the backend op")])
                if facts:
                    out[dev] = facts
        finally:
            C._DEVICE_NAME = saved_dev
            C._KNOWN_SEGFAULT_POLICY, C._KNOWN_SEGFAULTS_ACTIVE = saved_ks
        return out

    def generated_facts(item, entry, runner):
        """Facts for the generated preflight (rule 5b.4) of one entry, shared by name."""
        name = entry.get("name") or "<unknown>"
        strategy = (entry.get("generated") or {}).get("strategy") or {}
        strategy_name = strategy.get("strategy")
        key = (id(entry), runner)
        if key in gen_entries:
            return gen_entries[key]
        g = {"name": S(name), "runner": runner, "status": entry.get("status")}
        status = entry.get("status")
        early = None
        if status == "pending_backend_pack":
            early = ["pending_backend_pack", "pending_backend_pack"]
        elif status == "pending_property":
            early = ["pending_property", "pending_property"]
        elif status == "pending_oracle":
            early = ["coverage_strategy_pending", f"coverage_strategy_pending: oracle strategy is pending for {name}"]
        elif status == "unknown":
            early = ["coverage_unknown", "coverage_unknown"]
        elif status in CH.EXCLUDED_OR_PENDING_STATUSES:
            early = [status, status]
        if early:
            g["early"] = [early[0], S(early[1])]
        elif runner == "oracle_surface":
            per_dev = {}
            for dev in DEVICES:
                try:
                    r = oracle_collection_skip_for_surface(name, dev)
                    if r:
                        per_dev[dev] = [r[0], S(r[1])]
                    elif status not in CH.ORACLE_BACKED_STATUSES:
                        per_dev[dev] = ["coverage_strategy_pending", S(f"coverage_strategy_pending: {name} is not oracle-backed")]
                except Exception:
                    per_dev[dev] = "error"
            g["oracle"] = per_dev
        else:
            supported = CH.SUPPORTED_GENERATED_STRATEGIES_BY_RUNNER.get(runner)
            if supported is not None and strategy_name and strategy_name not in supported:
                g["late"] = ["coverage_strategy_pending", S(f"coverage_strategy_pending: {runner} strategy is not implemented for {name}")]
            elif strategy_name == "manual_elementwise" and (
                len(entry.get("returns") or []) != 1 or (entry.get("returns") or [{}])[0].get("type") != "Tensor"
            ):
                g["late"] = ["coverage_strategy_pending", S(f"coverage_strategy_pending: manual elementwise strategy cannot validate non-Tensor return for {name}")]
            else:
                g["post"] = strategy_name in CH.POST_CONTRACT_PREFLIGHT_STRATEGIES
                # Per dtype: "A" recorded allowed, "N+" not recorded and CPU probe ok,
                # "N-" not recorded and probe not ok, "X" recorded not allowed.
                per_dtype = []
                for dt in all_dtypes:
                    try:
                        c = CH._recorded_contract_disposition(name, dt)
                        if c.allowed:
                            per_dtype.append("A")
                        elif c.status == "not_recorded":
                            ok = CH._generated_clean_cpu_contract_allows(entry, dt, manifest)
                            per_dtype.append("N+" if ok else "N-")
                        else:
                            per_dtype.append("X")
                    except Exception:
                        per_dtype.append("E")
                g["dt"] = per_dtype
                if strategy_name == "manual_shape":
                    base = entry.get("base_name") or name.replace("aten::", "")
                    g["base"] = S(base)
                    clean_only = (
                        entry["base_name"] in {"set", "set_", "set_data"}
                        or entry["base_name"].startswith("_cast_")
                        or name.startswith("aten::view_as_")
                        or name in {"aten::view.dtype", "aten::view_copy.dtype", "aten::view_copy.dtype_out"}
                    )
                    g["clean_only"] = clean_only
                    normalized = str(base).removeprefix("aten::").split(".", 1)[0]
                    g["clean_family"] = normalized in clean_only_generated_families()
                    shape = []
                    try:
                        callable_op = CH._dispatcher_callable(entry)
                    except Exception:
                        callable_op = None
                    for dt, code in zip(all_dtypes, per_dtype):
                        if code not in ("A", "N+") or callable_op is None or not CH._manual_shape_dtype_supported(entry, dt):
                            shape.append("")
                            continue
                        bits = ""
                        for cond in ("clean", "has_nan", "has_inf"):
                            if cond != "clean" and not (dt.is_floating_point or dt.is_complex):
                                bits += "-"
                                continue
                            if cond != "clean" and bits[0] == "1":
                                # clean is always enabled and already runs: NaN/Inf
                                # tiers cannot change the answer for this dtype.
                                bits += "*"
                                continue
                            try:
                                ok = CH._run_manual_shape_case(entry, callable_op, dt, cond, "cpu", lambda *a, **k: None, manifest)
                            except Exception:
                                ok = False
                            bits += "1" if ok else "0"
                        shape.append(bits)
                    g["shape"] = shape
        idx = len(gen_list)
        gen_list.append(g)
        gen_entries[key] = idx
        return idx

    n = len(items)
    t_last = time.time()
    for i, item in enumerate(items):
        if time.time() - t_last > 10 or i == n - 1:
            t_last = time.time()
            log(f"item facts {i + 1}/{n}")
        params = C._callspec_params(item)
        rec = {"id": item.nodeid}
        try:
            op_name = None
            if hasattr(item, "callspec"):
                if "op" in params:
                    op_param = params["op"]
                    op_name = getattr(op_param, "name", str(op_param))
                elif "op_name" in params:
                    op_name = params["op_name"]
                elif isinstance(params.get("entry"), dict):
                    op_name = params["entry"].get("name")
            surfaces = C._contract_surfaces_for_item(item)
            if op_name is None and surfaces:
                op_name = surfaces[0]
            exempt = C._cpu_contract_exempt_reason(item) if exemption_gates else None
            if op_name is not None:
                rec["op"] = S(op_name)
            rec["lvl"] = C._semantic_level_for_item(item)["semantic_level"]
            rec["suite"] = C._canonical_suite_for_item(item)

            # rule 1
            for dtype_param in ("dtype", "dtype_str", "autocast_dtype"):
                if dtype_param not in params:
                    continue
                raw = params[dtype_param]
                if dtype_param == "dtype_str":
                    dt_str = str(raw)
                    dt = str_to_dtype(dt_str)
                else:
                    dt = raw
                    dt_str = dtype_to_str(dt)
                d1 = {"p": dtype_param, "dt": dt_str}
                if surfaces and exempt is None:
                    input_condition = params.get("input_condition", "clean")
                    entry = params.get("entry")
                    if isinstance(entry, dict) and surfaces == [entry.get("name")]:
                        d1["mode"] = "fail"
                        contract = contract_disposition(surfaces[0], dt, input_condition=input_condition)
                        if not contract.allowed and contract.status == "not_recorded":
                            probe = CH.probe_generated_clean_cpu_contract(entry, dt, manifest, enforce_recorded_contract=False)
                            if probe["status"] != "supported":
                                reason = {"unsupported": "cpu_contract_unsupported", "pending": "cpu_contract_pending"}.get(
                                    probe["status"], "cpu_contract_unknown")
                                d1["c"] = [reason, S(probe["detail"])]
                        elif not contract.allowed:
                            d1["c"] = [contract.skip_reason, S(contract.detail)]
                    else:
                        d1["mode"] = "set"
                        r, d = C._dtype_contract_skip_for_surfaces(surfaces, dt, input_condition=input_condition)
                        if r:
                            d1["c"] = [r, S(d)]
                rec["d1"] = d1
                break
            # rule 2
            d2 = []
            for dtype_param in ("src_dtype", "dst_dtype"):
                if dtype_param in params:
                    dt = params[dtype_param]
                    x = {"p": dtype_param, "dt": dtype_to_str(dt)}
                    if surfaces:
                        r, d = C._dtype_contract_skip_for_surfaces(surfaces, dt)
                        if r:
                            x["c"] = [r, S(d)]
                    d2.append(x)
            if d2:
                rec["d2"] = d2
            # rule 3
            if exempt is None:
                gates = []
                for surface, dt in C._fixed_dtype_contract_gates_for_item(item):
                    x = {"s": S(surface), "dt": dtype_to_str(dt)}
                    contract = contract_disposition(surface, dt)
                    if not contract.allowed and contract.status != "not_recorded":
                        x["c"] = [contract.skip_reason or "cpu_contract_unknown", S(contract.detail)]
                    gates.append(x)
                if gates:
                    rec["fx"] = gates
            # rule 4
            req = list(C.get_required_capabilities(item))
            if req:
                rec["req"] = req
            # rule 5b.1
            if "packing" in params and "test_quantized.py" in str(item.fspath).replace("\\", "/"):
                rec["pack"] = str(params["packing"])
                if item.name.startswith("test_custom_quantized_decoder"):
                    rec["decoder"] = True
            # rule 5b.2
            if item.name.startswith("test_large_allocations"):
                rec["large"] = True
            # rule 5b.3
            entry = params.get("entry")
            if isinstance(entry, dict):
                strategy = (entry.get("generated") or {}).get("strategy") or {}
                if strategy.get("strategy") == "manual_rng":
                    has_gen = any(arg.get("name") == "generator" for arg in entry.get("args", []))
                    uses = False
                    if has_gen:
                        try:
                            from torchcts.sample_generation import rng_uses_target_device_generator

                            uses = rng_uses_target_device_generator(entry)
                        except Exception:
                            uses = True
                    rec["rng"] = 2 if uses else 1
            # rule 5b.4
            if isinstance(entry, dict) and "generated/" in str(item.fspath).replace("\\", "/"):
                runner = C._generated_runner_for_item(item)
                if runner is not None:
                    rec["gen"] = generated_facts(item, entry, runner)
            # foreach/fused cases generated from the manifest
            if "test_foreach_fused.py" in str(item.fspath) and "entry" in params and "dtype" in params:
                rec["fe"] = S((entry or {}).get("name"))
            # rules 9, 10
            if "test_oom_recovery" in item.name:
                rec["oom"] = True
            if "test_gradcheck" in item.name:
                gc = {}
                if surfaces:
                    r, d = C._dtype_contract_skip_for_surfaces(surfaces, torch.float64)
                    if r:
                        gc["c"] = [r, S(d)]
                rec["gc"] = gc
            # rule 12
            if hasattr(item, "callspec") and "path_shape_case" in params and not isinstance(params.get("path_shape_case"), dict):
                rec["ps_empty"] = True
            # rule 12b
            if params.get("op_name") == "dummy" and "opinfo/" in str(item.fspath).replace("\\", "/"):
                rec["oi_dummy"] = True
            # OpInfo parameters
            fn = getattr(item, "originalname", None) or item.name.split("[", 1)[0]
            if fn == "test_op_forward" and "opinfo/" in str(item.fspath):
                rec["oi"] = ["f", S(params.get("op_name")), params.get("dtype_str"), params.get("input_condition")]
            elif fn == "test_op_backward" and "opinfo/" in str(item.fspath):
                rec["oi"] = ["b", S(params.get("op_name")), params.get("dtype_str")]
            elif fn == "test_op_errors" and "opinfo/" in str(item.fspath):
                rec["oi"] = ["e", S(params.get("op_name"))]
            dev = device_facts(item, op_name, params)
            if dev:
                rec["dev"] = dev
        except Exception as exc:
            rec["error"] = f"{type(exc).__name__}: {exc}"
            log(f"fact extraction failed for {item.nodeid}: {traceback.format_exc()[-1500:]}")
        records.append(rec)
    return records, gen_list


def opinfo_tables(S, torch):
    import torch.testing._internal.common_methods_invocations as cmi
    from torchcts.core import opinfo_adapter as OA
    has_opinfo_backward_reference = backward_reference_check()

    fwd, bwd = [], []
    seen = set()
    t_last = time.time()
    ops = list(cmi.op_db)
    for i, op in enumerate(ops):
        if time.time() - t_last > 10:
            t_last = time.time()
            log(f"opinfo tables {i}/{len(ops)}")
        if op.name in seen:
            continue
        seen.add(op.name)
        jiter = op.name in OA.SKIP_OPS
        sparse = bool(getattr(op, "supports_sparse", False) or getattr(op, "supports_sparse_csr", False))
        ieee_ok = not OA._has_invalid_ieee754_cpu_oracle(op.name) and op.name not in OA._NO_IEEE754_PROPAGATION_OPS
        dts = []
        for d in sorted(op.dtypes, key=lambda x: str(x)):
            if jiter:
                continue
            c = OA.probe_opinfo_cpu_contract(op, d, phase="forward")
            x = [OA.dtype_to_str(d), bool(d.is_floating_point or d.is_complex)]
            if not c.allowed:
                x.append([c.skip_reason or "cpu_contract_unknown", S(c.detail)])
            dts.append(x)
        fwd.append({"op": S(op.name), "jit": jiter, "sparse": sparse, "ieee": ieee_ok, "dts": dts})
        b_ok = op.name not in OA._NO_GENERIC_BACKWARD_ORACLE_OPS and bool(getattr(op, "supports_autograd", True))
        bdts = []
        if b_ok and not jiter:
            for d in sorted(op.backward_dtypes, key=lambda x: str(x)):
                if d not in OA.DIFFERENTIABLE:
                    continue
                x = [OA.dtype_to_str(d)]
                if not has_opinfo_backward_reference(op.name, d):
                    c = OA.probe_opinfo_cpu_contract(op, d, phase="backward")
                    if not c.allowed:
                        x.append([c.skip_reason or "cpu_contract_unknown", S(c.detail)])
                bdts.append(x)
        bwd.append({"op": S(op.name), "jit": jiter, "ok": b_ok, "sparse": sparse, "dts": bdts})
    return {"forward": fwd, "backward": bwd}


def device_table(torch):
    """How torch and torchcts see each device name of DEVICES."""
    from torchcts.core.device import get_device_module

    out = {}
    for dev in DEVICES:
        try:
            t = torch.device(dev).type
        except Exception:
            t = None
        out[dev] = {"type": t, "module": get_device_module(dev) is not None}
    return out


def seed_strings(path):
    """The strings table of an existing inventory (`--strings-from`), or nothing."""
    if not path:
        return []
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)["strings"]


def build_inventory(items, args, version):
    import torch
    C = sys.modules.get("torchcts.conftest")
    if C is None:
        import torchcts.conftest as C  # noqa: N813
    S = Strings(seed_strings(args.strings_from))
    all_dtypes = dtype_list(torch)
    from torchcts.core.opinfo_adapter import dtype_to_str

    records, gen_list = compute_item_facts(C, items, S, torch, all_dtypes)
    log("match metadata")
    metadata = [match_metadata(C, item, rec.get("suite")) for item, rec in zip(items, records)]
    log("building OpInfo tables")
    tables = {"forward": [], "backward": []} if args.no_tables else opinfo_tables(S, torch)
    # The maximal manifest has no skip_ops, so the error ops are exactly its items.
    tables["errors"] = [r["oi"][1] for r in records if r.get("oi", [None])[0] == "e"]

    import torchcts.conftest as CC

    reason_sets = {
        "dtype_manifest": sorted(CC._DTYPE_MANIFEST_SKIP_REASONS),
        "dtype_contract": sorted(CC._DTYPE_CONTRACT_SKIP_REASONS),
        "manifest_declined": sorted(CC._BACKEND_MANIFEST_DECLINED_SKIP_REASONS),
        "structured_deselect": sorted(CC._STRUCTURED_DESELECT_SKIP_REASONS),
    }
    from torchcts.core.semantic_levels import suite_default_level

    inv = {
        "format": "torchcts-lsp-inventory",
        "format_version": FORMAT_VERSION,
        "torchcts_version": version,
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "extracted_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "extraction_seconds": round(time.time() - _T0, 1),
        "privateuse1_name": CC._privateuse1_backend_name(),
        "devices": device_table(torch),
        "dtypes": [
            {"name": dtype_to_str(d), "fc": bool(d.is_floating_point or d.is_complex),
             "diff": d in __import__("torchcts.core.opinfo_adapter", fromlist=["x"]).DIFFERENTIABLE}
            for d in all_dtypes
        ],
        "reason_sets": reason_sets,
        "opinfo_default_level": suite_default_level("opinfo").level,
        "generated_default_level": suite_default_level("generated").level,
        "strings": S.items,
        "generated": gen_list,
        "opinfo": tables,
        "items": records,
        "match_metadata": metadata,
        "maximal_run": {"conftest_records": len(CC._SESSION_SKIPS), "items": len(records)},
    }
    return inv


def read_inventory(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def add_match_metadata(items, args):
    """`--metadata-into`: the given inventory of this very release (same items, same
    order) with its `match_metadata` (re)computed; its other facts are kept as they are."""
    import torch

    C = sys.modules.get("torchcts.conftest")
    if C is None:
        import torchcts.conftest as C  # noqa: N813
    inv = read_inventory(args.metadata_into)
    if str(inv.get("torch_version")).split("+")[0] != torch.__version__.split("+")[0]:
        raise RuntimeError(f"{args.metadata_into} is torch {inv.get('torch_version')}, this is torch {torch.__version__}")
    got = [item.nodeid for item in items]
    want = [rec["id"] for rec in inv["items"]]
    if got != want:
        missing = sorted(set(want) - set(got))[:5]
        extra = sorted(set(got) - set(want))[:5]
        raise RuntimeError(f"the collection differs from {args.metadata_into}: {len(got)} vs {len(want)} items; "
                           f"missing {missing}, extra {extra}")
    metadata = []
    for i, (item, rec) in enumerate(zip(items, inv["items"])):
        metadata.append(match_metadata(C, item, rec.get("suite")))
        if i % 2000 == 0:
            log(f"match metadata {i + 1}/{len(items)}")
    inv.pop("match_metadata", None)
    # Keep `match_metadata` right after `items`, where a full extraction writes it.
    out = {}
    for key, value in inv.items():
        out[key] = value
        if key == "items":
            out["match_metadata"] = metadata
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output path (.json.gz or .json)")
    ap.add_argument("--suite", action="append", help="limit to these suites (debugging only)")
    ap.add_argument("--path", action="append", help="collect these test files instead (debugging only)")
    ap.add_argument("--only", help="keep only items whose node id matches this regex (debugging only)")
    ap.add_argument("--no-tables", action="store_true", help="skip the OpInfo tables (debugging only)")
    ap.add_argument("--strings-from", help="seed the strings table from this inventory (stable indices across versions)")
    ap.add_argument("--pytest-arg", action="append", default=[], help="extra pytest argument (debugging only)")
    ap.add_argument("--metadata-into", metavar="INVENTORY",
                    help="only (re)compute the match metadata of INVENTORY, an extraction of this same "
                         "torchcts and torch (collection only: minutes, not the full extraction)")
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)  # the run changes into a scratch folder
    if args.metadata_into:
        args.metadata_into = os.path.abspath(args.metadata_into)
    if args.strings_from:
        args.strings_from = os.path.abspath(args.strings_from)

    import torch
    import pytest
    import torchcts
    from torchcts import cli

    version = getattr(torchcts, "__version__", None)
    if version is None:
        from importlib.metadata import version as _v

        version = _v("torchcts")
    log(f"torchcts {version}, torch {torch.__version__}, python {platform.python_version()}")

    work = tempfile.mkdtemp(prefix="torchcts-inventory-")
    with open(os.path.join(work, "manifest.py"), "w", encoding="utf-8") as f:
        f.write(maximal_manifest_source(torch))
    os.chdir(work)
    log(f"maximal manifest in {work}")

    plugin = InventoryPlugin()
    plugin.args = args
    plugin.version = version
    paths = cli._default_test_paths(os.path.dirname(cli.__file__))
    if args.path:
        paths = [os.path.join(os.path.dirname(cli.__file__), p) for p in args.path]
    if args.suite:
        paths = [p for p in paths if os.path.basename(p) in args.suite]
    pytest_args = ["--collect-only", "-qq", "--device", "cpu", "--level", "8",
                   *args.pytest_arg, *paths]
    # Node ids relative to the package wherever the environment lives (pytest would
    # otherwise root them at the common ancestor of the scratch folder and the venv).
    pkg = os.path.dirname(cli.__file__)
    pytest_args[:0] = ["--rootdir", pkg, "--confcutdir", os.path.dirname(pkg)]
    log(f"pytest {' '.join(pytest_args)}")
    import io
    import contextlib

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        rc = pytest.main(pytest_args, plugins=[plugin])
    log(f"pytest returned {rc}")
    if plugin.items is None:
        print(sink.getvalue()[-5000:], file=sys.stderr)
        raise SystemExit("collection did not reach pytest_collection_modifyitems")

    inv = plugin.result
    if inv is None:
        raise SystemExit(f"inventory was not built: {plugin.error}")
    if not args.metadata_into:
        inv["extraction_seconds"] = round(time.time() - _T0, 1)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)) or ".", exist_ok=True)
    raw = json.dumps(inv, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if args.out.endswith(".gz"):
        with open(args.out, "wb") as f:
            f.write(gzip.compress(raw, compresslevel=9, mtime=0))
    else:
        with open(args.out, "wb") as f:
            f.write(raw)
    log(f"wrote {args.out}: {len(raw)} bytes raw, {os.path.getsize(args.out)} bytes on disk, "
        f"{len(inv['items'])} items, {len(inv['strings'])} strings")


if __name__ == "__main__":
    main()
