"""edgerun.Interpreter: tflite_runtime's API, its details dicts, tensors, resize, signatures and
errors, on conformance models."""
import numpy as np
import pytest

import edgerun
from conftest import INVALID, case_dir, case_json


def model_path(name):
    return str(case_dir(name) / "model.tflite")


def read_input(name, k, spec):
    data = np.fromfile(str(case_dir(name) / "input_{}.bin".format(k)), dtype=spec["dtype"])
    return data.reshape(spec["shape"])


def read_expected(name, k, spec):
    data = np.fromfile(str(case_dir(name) / "expected_{}.bin".format(k)), dtype=spec["dtype"])
    return data.reshape(spec["shape"])


def test_details_have_tflite_runtime_keys_and_types():
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_add"))
    (detail,) = interpreter.get_input_details()
    assert set(detail) == {"name", "index", "shape", "shape_signature", "dtype", "quantization",
                           "quantization_parameters", "sparsity_parameters"}
    assert detail["name"] == "input"
    assert isinstance(detail["index"], int)
    assert detail["shape"].dtype == np.int32 and detail["shape"].tolist() == [1, 8, 8, 3]
    assert detail["shape_signature"].dtype == np.int32 and len(detail["shape_signature"]) == 4
    assert detail["dtype"] is np.float32
    assert detail["quantization"] == (0.0, 0)
    q = detail["quantization_parameters"]
    assert set(q) == {"scales", "zero_points", "quantized_dimension"}
    assert q["scales"].dtype == np.float32 and q["scales"].size == 0
    assert q["zero_points"].dtype == np.int32 and q["zero_points"].size == 0
    assert q["quantized_dimension"] == 0
    assert detail["sparsity_parameters"] == {}


def test_quantized_details():
    interpreter = edgerun.Interpreter(model_path=model_path("coral_mobilenet_v2_1.0_224_quant"))
    (detail,) = interpreter.get_input_details()
    assert detail["dtype"] is np.uint8
    assert detail["quantization"] == (0.0078125, 128)
    assert detail["quantization_parameters"]["scales"].tolist() == [0.0078125]
    assert detail["quantization_parameters"]["zero_points"].tolist() == [128]
    # Per-channel weights: several scales, and the legacy tuple is (0.0, 0) as in TFLite.
    per_channel = [d for d in interpreter.get_tensor_details()
                   if d["quantization_parameters"]["scales"].size > 1]
    for d in per_channel:
        assert d["quantization"] == (0.0, 0)
        assert d["quantization_parameters"]["zero_points"].size == d["quantization_parameters"]["scales"].size


def test_tensor_details_index_every_tensor_of_subgraph_0():
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_multi_add"))
    details = interpreter.get_tensor_details()
    assert [d["index"] for d in details] == list(range(len(details)))
    inputs = interpreter.get_input_details()
    assert len(inputs) == 4
    for d in inputs:
        assert details[d["index"]]["name"] == d["name"]
    with pytest.raises(ValueError, match="subgraph_index is out of range"):
        interpreter.get_tensor_details(subgraph_index=5)


def test_run_matches_expected_output():
    spec = case_json("tflite_add")
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_add"), num_threads=2)
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], read_input("tflite_add", 0, spec["inputs"][0]))
    interpreter.invoke()
    out = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    assert out.dtype == np.float32 and out.shape == (1, 8, 8, 3)
    np.testing.assert_allclose(out, read_expected("tflite_add", 0, spec["outputs"][0]), rtol=1e-5, atol=1e-5)


def test_model_content_bytes_and_bytearray():
    content = (case_dir("tflite_add") / "model.tflite").read_bytes()
    for blob in (content, bytearray(content)):
        interpreter = edgerun.Interpreter(model_content=blob)
        interpreter.allocate_tensors()
        index = interpreter.get_input_details()[0]["index"]
        interpreter.set_tensor(index, np.ones((1, 8, 8, 3), np.float32))
        interpreter.invoke()
        assert interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).shape == (1, 8, 8, 3)


def test_tensor_is_a_zero_copy_view_and_guards_reallocation():
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_add"))
    interpreter.allocate_tensors()
    input_view = interpreter.tensor(interpreter.get_input_details()[0]["index"])
    output_view = interpreter.tensor(interpreter.get_output_details()[0]["index"])
    input_view().fill(1.5)
    interpreter.invoke()
    first = output_view().copy()
    input_view()[...] = 0.0
    interpreter.invoke()
    second = output_view().copy()
    assert not np.array_equal(first, second)  # the view wrote into the interpreter's input
    reference = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    np.testing.assert_array_equal(second, reference)
    # A live view blocks invoke/allocate (the memory could move), as in tflite_runtime.
    held = output_view()
    with pytest.raises(RuntimeError, match="reference to internal data"):
        interpreter.invoke()
    with pytest.raises(RuntimeError):
        interpreter.allocate_tensors()
    del held
    interpreter.invoke()


def test_set_tensor_errors():
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_add"))
    index = interpreter.get_input_details()[0]["index"]
    with pytest.raises(ValueError, match="allocate_tensors"):
        interpreter.set_tensor(index, np.zeros((1, 8, 8, 3), np.float32))
    interpreter.allocate_tensors()
    with pytest.raises(ValueError, match="type"):
        interpreter.set_tensor(index, np.zeros((1, 8, 8, 3), np.float64))
    with pytest.raises(ValueError, match="Dimension mismatch"):
        interpreter.set_tensor(index, np.zeros((1, 8, 8), np.float32))
    with pytest.raises(ValueError, match="Dimension mismatch"):
        interpreter.set_tensor(index, np.zeros((1, 8, 8, 4), np.float32))
    with pytest.raises(ValueError, match="Invalid tensor index"):
        interpreter.set_tensor(10000, np.zeros((1,), np.float32))
    with pytest.raises(ValueError, match="Invalid tensor index"):
        interpreter.get_tensor(-1)
    # Non-contiguous input is accepted (copied into C order).
    value = np.arange(2 * 8 * 8 * 3, dtype=np.float32).reshape(2, 8, 8, 3)[::2]
    interpreter.set_tensor(index, value)
    np.testing.assert_array_equal(interpreter.get_tensor(index), value)


def test_invoke_before_allocate_raises_runtime_error():
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_add"))
    with pytest.raises(RuntimeError, match="AllocateTensors"):
        interpreter.invoke()
    with pytest.raises(ValueError, match="allocate_tensors"):
        interpreter.get_tensor(interpreter.get_output_details()[0]["index"])


def test_constructor_errors():
    with pytest.raises(ValueError, match="must be specified"):
        edgerun.Interpreter()
    with pytest.raises(ValueError, match="both"):
        edgerun.Interpreter(model_path="a.tflite", model_content=b"x")
    with pytest.raises(ValueError, match="num_threads"):
        edgerun.Interpreter(model_path=model_path("tflite_add"), num_threads=0)
    with pytest.raises(ValueError, match="num_threads"):
        edgerun.Interpreter(model_path=model_path("tflite_add"), num_threads="2")
    with pytest.raises(ValueError, match="no_such_model.tflite"):
        edgerun.Interpreter(model_path="/nonexistent/no_such_model.tflite")
    with pytest.raises(ValueError):
        edgerun.Interpreter(model_content=b"definitely not a flatbuffer model, but long enough")


@pytest.mark.parametrize("name", ["truncated_50_vww_96_int8.tflite", "invalid_model_text.tflite",
                                  "zero_subgraphs.tflite", "unresolved_custom_op.tflite",
                                  "bitflip64_micro_speech_quantized.tflite"])
def test_broken_models_raise_value_error(name):
    path = INVALID / name
    if not path.exists():
        pytest.skip("no {}".format(path))
    try:
        interpreter = edgerun.Interpreter(model_path=str(path))
    except ValueError as e:
        assert str(e)
        return
    # A model whose damage shows only when it runs: a clean RuntimeError at most.
    try:
        interpreter.allocate_tensors()
        interpreter.invoke()
    except RuntimeError as e:
        assert str(e)


def test_invalid_model_message_names_the_file_and_the_reason():
    # The model feeds a constant into a subgraph input (before its unresolved custom op is reached).
    path = INVALID / "unresolved_custom_op.tflite"
    if not path.exists():
        pytest.skip("no {}".format(path))
    with pytest.raises(ValueError, match=r"unresolved_custom_op\.tflite: subgraph 0: input 0 .*constant data"):
        edgerun.Interpreter(model_path=str(path))


def test_resize_non_strict_batch():
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_add"))
    index = interpreter.get_input_details()[0]["index"]
    interpreter.resize_tensor_input(index, [3, 8, 8, 3])
    interpreter.allocate_tensors()
    assert interpreter.get_input_details()[0]["shape"].tolist() == [3, 8, 8, 3]
    batch = np.random.default_rng(0).standard_normal((3, 8, 8, 3)).astype(np.float32)
    interpreter.set_tensor(index, batch)
    interpreter.invoke()
    batched = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    assert batched.shape == (3, 8, 8, 3)
    # Each item of the batch gives what it gives alone.
    single = edgerun.Interpreter(model_path=model_path("tflite_add"))
    single.allocate_tensors()
    single.set_tensor(index, batch[1:2])
    single.invoke()
    np.testing.assert_array_equal(single.get_tensor(single.get_output_details()[0]["index"]), batched[1:2])


def test_resize_strict_and_errors():
    interpreter = edgerun.Interpreter(model_path=model_path("litert_simple_add_dynamic_shape"))
    inputs = interpreter.get_input_details()
    assert -1 in inputs[0]["shape_signature"].tolist()
    shape = [2 if d == -1 else d for d in inputs[0]["shape_signature"].tolist()]
    for d in inputs:
        interpreter.resize_tensor_input(d["index"], shape, strict=True)
    interpreter.allocate_tensors()
    a = np.full(shape, 2.0, np.float32)
    b = np.full(shape, 0.25, np.float32)
    interpreter.set_tensor(inputs[0]["index"], a)
    interpreter.set_tensor(inputs[1]["index"], b)
    interpreter.invoke()
    np.testing.assert_array_equal(interpreter.get_tensor(interpreter.get_output_details()[0]["index"]), a + b)
    bad = [2 if d == -1 else d + 1 for d in inputs[0]["shape_signature"].tolist()]
    with pytest.raises(RuntimeError, match="cannot take shape"):
        interpreter.resize_tensor_input(inputs[0]["index"], bad, strict=True)
    with pytest.raises(ValueError, match="negative"):
        interpreter.resize_tensor_input(inputs[0]["index"], [-1, 2, 4])
    with pytest.raises(ValueError, match="not an input"):
        interpreter.resize_tensor_input(interpreter.get_output_details()[0]["index"], shape)


def test_reset_all_variables():
    name = "quant_lstm_quantized"
    spec = case_json(name)
    interpreter = edgerun.Interpreter(model_path=model_path(name))
    interpreter.allocate_tensors()
    index = interpreter.get_input_details()[0]["index"]
    out_index = interpreter.get_output_details()[0]["index"]
    x = read_input(name, 0, spec["inputs"][0])
    interpreter.set_tensor(index, x)
    interpreter.invoke()
    first = interpreter.get_tensor(out_index)
    interpreter.set_tensor(index, x)
    interpreter.invoke()  # runs from the state the first run left
    interpreter.reset_all_variables()
    interpreter.set_tensor(index, x)
    interpreter.invoke()
    np.testing.assert_array_equal(interpreter.get_tensor(out_index), first)


def test_signatures():
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_multi_signatures"))
    signatures = interpreter.get_signature_list()
    assert set(signatures) == {"add", "sub"}
    for definition in signatures.values():
        assert set(definition) == {"inputs", "outputs"}
        assert isinstance(definition["inputs"], list) and len(definition["inputs"]) == 1
    sub = interpreter.get_signature_runner("sub")
    (input_name,) = signatures["sub"]["inputs"]
    (output_name,) = signatures["sub"]["outputs"]
    result = sub(**{input_name: np.array([5.0], np.float32)})
    assert set(result) == {output_name}
    np.testing.assert_array_equal(result[output_name], np.array([2.0], np.float32))
    add = interpreter.get_signature_runner("add")
    result = add(**{signatures["add"]["inputs"][0]: np.array([5.0], np.float32)})
    np.testing.assert_array_equal(next(iter(result.values())), np.array([7.0], np.float32))
    details = sub.get_input_details()
    assert set(details) == {input_name} and details[input_name]["dtype"] is np.float32
    assert set(sub.get_output_details()) == {output_name}

    with pytest.raises(ValueError, match="None is only allowed"):
        interpreter.get_signature_runner()
    with pytest.raises(ValueError, match="Invalid signature_key"):
        interpreter.get_signature_runner("mul")
    with pytest.raises(ValueError, match="Invalid Input name"):
        sub(nope=np.array([1.0], np.float32))
    with pytest.raises(ValueError, match="Invalid number of inputs"):
        sub()


def test_single_signature_runner_with_default_key():
    interpreter = edgerun.Interpreter(model_path=model_path("litertjs_multi_signature_model"))
    signatures = interpreter.get_signature_list()
    assert len(signatures) >= 1
    key = next(iter(signatures))
    runner = interpreter.get_signature_runner(key)
    args = {}
    for name, detail in runner.get_input_details().items():
        args[name] = np.ones(detail["shape"], detail["dtype"])
    outputs = runner(**args)
    assert set(outputs) == set(signatures[key]["outputs"])


def test_load_delegate_failure_is_value_error():
    with pytest.raises(ValueError, match="Failed to load delegate from"):
        edgerun.load_delegate("libdefinitely_not_a_delegate.so")


def test_op_resolver_type():
    for resolver in edgerun.OpResolverType:
        interpreter = edgerun.Interpreter(model_path=model_path("tflite_add"),
                                          experimental_op_resolver_type=resolver)
        interpreter.allocate_tensors()
    with pytest.raises(ValueError, match="op resolver"):
        edgerun.Interpreter(model_path=model_path("tflite_add"), experimental_op_resolver_type=1)


def test_ops_details():
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_multi_add"))
    ops = interpreter._get_ops_details()
    assert ops and all(op["op_name"] == "ADD" for op in ops)
    assert [op["index"] for op in ops] == list(range(len(ops)))
    assert all(t is np.float32 for op in ops for t in op["operand_types"] + op["result_types"])
    with pytest.raises(ValueError, match="Invalid node index"):
        interpreter._get_op_details(len(ops))


def test_set_tensor_converts_byte_order():
    interpreter = edgerun.Interpreter(model_path=model_path("tflite_add"))
    interpreter.allocate_tensors()
    index = interpreter.get_input_details()[0]["index"]
    value = np.linspace(-1, 1, 192, dtype=np.float32).reshape(1, 8, 8, 3)
    interpreter.set_tensor(index, value.astype(">f4"))
    np.testing.assert_array_equal(interpreter.get_tensor(index), value)


def test_preserve_all_tensors_keeps_intermediate_values():
    """Fused and delegated nodes keep their inner values out of memory; with
    experimental_preserve_all_tensors (as in TFLite) every tensor is readable after invoke()."""
    name = "coral_mobilenet_v2_1.0_224_quant"
    spec = case_json(name)
    image = read_input(name, 0, spec["inputs"][0])
    outputs = []
    for preserve in (False, True):
        interpreter = edgerun.Interpreter(model_path=model_path(name), experimental_preserve_all_tensors=preserve)
        interpreter.allocate_tensors()
        interpreter.set_tensor(interpreter.get_input_details()[0]["index"], image)
        interpreter.invoke()
        outputs.append(interpreter.get_tensor(interpreter.get_output_details()[0]["index"]))
        # An expanded value inside MobileNet v2's second block (fused when not preserving).
        inside = [d for d in interpreter.get_tensor_details() if d["shape"].tolist() == [1, 112, 112, 96]]
        assert inside, "no 112x112x96 tensor"
        if preserve:
            value = interpreter.get_tensor(inside[0]["index"])
            assert value.shape == (1, 112, 112, 96) and value.dtype == np.uint8
            assert value.min() != value.max()
        else:
            with pytest.raises(ValueError, match="experimental_preserve_all_tensors"):
                interpreter.get_tensor(inside[0]["index"])
    np.testing.assert_array_equal(outputs[0], outputs[1])
