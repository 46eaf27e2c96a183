"""The Python API gives exactly what the C++ runtime gives: every conformance case run through
edgerun.Interpreter (signatures through get_signature_runner) and through `edgerun run`, outputs
compared byte for byte. Also: every tensor type of the corpus maps to the numpy dtype that
case.json names."""
import subprocess

import numpy as np
import pytest

import edgerun
from conftest import BUILD, all_cases, case_dir, case_json

def run_python(name, spec):
    """Runs a case with the tflite_runtime API; returns the outputs in subgraph output order."""
    folder = case_dir(name)
    inputs = [np.fromfile(str(folder / t["file"]), dtype=t["dtype"]).reshape(t["shape"]) for t in spec["inputs"]]
    interpreter = edgerun.Interpreter(model_path=str(folder / "model.tflite"))
    key = spec.get("signature")
    if key:
        runner = interpreter.get_signature_runner(key)
        wrapper, subgraph = interpreter._interpreter, runner._subgraph_index
        names_by_index = {d["index"]: n for n, d in runner.get_input_details().items()}
        order = wrapper.input_indices(subgraph)
        results = runner(**{names_by_index[index]: value for index, value in zip(order, inputs)})
        outputs_by_index = {d["index"]: results[n] for n, d in runner.get_output_details().items()}
        return [outputs_by_index[index] for index in wrapper.output_indices(subgraph)]
    details = interpreter.get_input_details()
    for detail, value in zip(details, inputs):
        if list(detail["shape"]) != list(value.shape):
            interpreter.resize_tensor_input(detail["index"], value.shape)
    interpreter.allocate_tensors()
    for detail, value in zip(details, inputs):
        interpreter.set_tensor(detail["index"], value)
    interpreter.invoke()
    return [interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()]


def run_cli(name, spec, out_dir):
    folder = case_dir(name)
    command = [str(BUILD / "edgerun"), "run", str(folder / "model.tflite"), "--output-dir", str(out_dir)]
    for t in spec["inputs"]:
        command += ["--input", str(folder / t["file"])]
    if spec.get("signature"):
        command += ["--signature", spec["signature"]]
    return subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300)


@pytest.mark.parametrize("name", all_cases())
def test_python_equals_cli(name, tmp_path):
    spec = case_json(name)
    cli = run_cli(name, spec, tmp_path)
    try:
        outputs = run_python(name, spec)
    except (ValueError, RuntimeError) as e:
        # The C++ runtime must refuse the same case, for the same reason.
        assert cli.returncode != 0, "Python failed where the CLI ran: {}".format(e)
        first_line = cli.stderr.strip().splitlines()[0] if cli.stderr.strip() else ""
        assert first_line and first_line.split(": ")[-1] in str(e)
        return
    assert cli.returncode == 0, "CLI failed where Python ran: " + cli.stderr
    assert len(outputs) == len(spec["outputs"])
    for k, (value, expected_spec) in enumerate(zip(outputs, spec["outputs"])):
        assert value.dtype == np.dtype(expected_spec["dtype"]), "output {}".format(k)
        assert list(value.shape) == list(expected_spec["shape"]), "output {}".format(k)
        cli_bytes = (tmp_path / "output_{}.bin".format(k)).read_bytes()
        assert value.tobytes() == cli_bytes, "output {} differs from `edgerun run`".format(k)


@pytest.mark.parametrize("name", all_cases())
def test_numpy_dtypes_of_inputs_and_outputs(name):
    spec = case_json(name)
    interpreter = edgerun.Interpreter(model_path=str(case_dir(name) / "model.tflite"))
    key = spec.get("signature")
    if key:
        runner = interpreter.get_signature_runner(key)
        by_name = {d["name"]: d for d in list(runner.get_input_details().values()) +
                   list(runner.get_output_details().values())}
        details = [by_name[t["name"]] for t in spec["inputs"] + spec["outputs"] if t["name"] in by_name]
        expected = [t for t in spec["inputs"] + spec["outputs"] if t["name"] in by_name]
    else:
        details = interpreter.get_input_details() + interpreter.get_output_details()
        expected = spec["inputs"] + spec["outputs"]
    assert len(details) == len(expected)
    for detail, t in zip(details, expected):
        assert detail["dtype"] is np.dtype(t["dtype"]).type, t["name"]
        if t.get("quantization") and "scale" in t["quantization"]:
            scale, zero_point = detail["quantization"]
            assert scale == pytest.approx(t["quantization"]["scale"], rel=1e-6)
            assert zero_point == t["quantization"]["zero_point"]
