#!/usr/bin/python3
"""Writes the ONNX twin of a float32 .tflite CNN (same weights, NCHW layout) so that ONNX Runtime
can run the same network as edgerun: the synthetic MobileNet/ResNet models of `edgerun synth`.

usage: tflite_to_onnx.py MODEL.tflite OUT.onnx GENERATED_DIR

GENERATED_DIR holds the Python reader of schema/tflite.fbs (`flatc --python`). Needs Debian's
python3-onnx and python3-flatbuffers. Handles the ops those networks use: CONV_2D,
DEPTHWISE_CONV_2D, ADD, MAX_POOL_2D, AVERAGE_POOL_2D, RESHAPE (to [N, C] after a 1x1 image),
FULLY_CONNECTED and SOFTMAX, with fused RELU/RELU6.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    model_path, out_path, generated = sys.argv[1:4]
    sys.path.insert(0, generated)
    from tflite.Model import Model
    from tflite.BuiltinOperator import BuiltinOperator as Op
    from tflite.ActivationFunctionType import ActivationFunctionType as Act
    from tflite.Padding import Padding
    from tflite.Conv2DOptions import Conv2DOptions
    from tflite.DepthwiseConv2DOptions import DepthwiseConv2DOptions
    from tflite.AddOptions import AddOptions
    from tflite.Pool2DOptions import Pool2DOptions
    from tflite.FullyConnectedOptions import FullyConnectedOptions
    from tflite.SoftmaxOptions import SoftmaxOptions
    from tflite.TensorType import TensorType

    buf = open(model_path, "rb").read()
    m = Model.GetRootAs(buf, 0)
    sg = m.Subgraphs(0)
    tensors = [sg.Tensors(i) for i in range(sg.TensorsLength())]

    def name(i):
        return "t%d_%s" % (i, tensors[i].Name().decode())

    def shape(i):
        return [int(d) for d in tensors[i].ShapeAsNumpy()]

    def const(i):
        t = tensors[i]
        if t.Type() != TensorType.FLOAT32:
            sys.exit("tflite_to_onnx: tensor %s is not float32" % t.Name().decode())
        data = m.Buffers(t.Buffer()).DataAsNumpy()
        return np.frombuffer(data.tobytes(), dtype="<f4").reshape(shape(i))

    nodes, inits = [], []
    counter = [0]

    def fresh(prefix):
        counter[0] += 1
        return "%s_%d" % (prefix, counter[0])

    def init(array, prefix):
        n = fresh(prefix)
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), n))
        return n

    def options(op, cls):
        table = op.BuiltinOptions()
        o = cls()
        o.Init(table.Bytes, table.Pos)
        return o

    def activation(x, act, out):
        if act == Act.NONE:
            nodes.append(helper.make_node("Identity", [x], [out]))
        elif act == Act.RELU:
            nodes.append(helper.make_node("Relu", [x], [out]))
        elif act == Act.RELU6:
            lo = init(np.array(0, np.float32), "zero")
            hi = init(np.array(6, np.float32), "six")
            nodes.append(helper.make_node("Clip", [x, lo, hi], [out]))
        else:
            sys.exit("tflite_to_onnx: fused activation %d not handled" % act)

    def same_pads(in_hw, k, stride, padding):
        if padding == Padding.VALID:
            return [0, 0, 0, 0]
        begin, end = [], []
        for size, kk, s in zip(in_hw, k, stride):
            out = (size + s - 1) // s
            total = max((out - 1) * s + kk - size, 0)
            begin.append(total // 2)
            end.append(total - total // 2)
        return begin + end

    for oi in range(sg.OperatorsLength()):
        op = sg.Operators(oi)
        code = m.OperatorCodes(op.OpcodeIndex())
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        ins = [int(i) for i in op.InputsAsNumpy()]
        out = int(op.OutputsAsNumpy()[0])
        x = name(ins[0])
        if builtin in (Op.CONV_2D, Op.DEPTHWISE_CONV_2D):
            depthwise = builtin == Op.DEPTHWISE_CONV_2D
            o = options(op, DepthwiseConv2DOptions if depthwise else Conv2DOptions)
            w = const(ins[1])  # conv [O, kh, kw, I]; depthwise [1, kh, kw, C]
            w = w.transpose(3, 0, 1, 2) if depthwise else w.transpose(0, 3, 1, 2)
            k = list(w.shape[2:])
            stride = [o.StrideH(), o.StrideW()]
            dil = [o.DilationHFactor(), o.DilationWFactor()]
            if dil != [1, 1]:
                sys.exit("tflite_to_onnx: dilated convolutions not handled")
            in_shape = shape(ins[0])
            pads = same_pads(in_shape[1:3], k, stride, o.Padding())
            group = in_shape[3] if depthwise else 1
            inputs = [x, init(w, "w")]
            if len(ins) > 2 and ins[2] >= 0:
                inputs.append(init(const(ins[2]), "b"))
            y = fresh("conv")
            nodes.append(helper.make_node("Conv", inputs, [y], kernel_shape=k, strides=stride, pads=pads, group=group))
            activation(y, o.FusedActivationFunction(), name(out))
        elif builtin == Op.ADD:
            o = options(op, AddOptions)
            y = fresh("add")
            nodes.append(helper.make_node("Add", [x, name(ins[1])], [y]))
            activation(y, o.FusedActivationFunction(), name(out))
        elif builtin in (Op.MAX_POOL_2D, Op.AVERAGE_POOL_2D):
            o = options(op, Pool2DOptions)
            in_shape = shape(ins[0])
            k = [o.FilterHeight(), o.FilterWidth()]
            y = fresh("pool")
            if builtin == Op.AVERAGE_POOL_2D and k == in_shape[1:3] and o.Padding() == Padding.VALID:
                nodes.append(helper.make_node("GlobalAveragePool", [x], [y]))
            else:
                stride = [o.StrideH(), o.StrideW()]
                pads = same_pads(in_shape[1:3], k, stride, o.Padding())
                kind = "MaxPool" if builtin == Op.MAX_POOL_2D else "AveragePool"
                nodes.append(helper.make_node(kind, [x], [y], kernel_shape=k, strides=stride, pads=pads))
            activation(y, o.FusedActivationFunction(), name(out))
        elif builtin == Op.RESHAPE:
            in_shape, out_shape = shape(ins[0]), shape(out)
            if len(in_shape) != 4 or in_shape[1:3] != [1, 1] or out_shape != [in_shape[0], in_shape[3]]:
                sys.exit("tflite_to_onnx: only RESHAPE [N,1,1,C] -> [N,C] is handled")
            nodes.append(helper.make_node("Flatten", [x], [name(out)], axis=1))
        elif builtin == Op.FULLY_CONNECTED:
            o = options(op, FullyConnectedOptions)
            inputs = [x, init(const(ins[1]), "w")]
            if len(ins) > 2 and ins[2] >= 0:
                inputs.append(init(const(ins[2]), "b"))
            y = fresh("fc")
            nodes.append(helper.make_node("Gemm", inputs, [y], transB=1))
            activation(y, o.FusedActivationFunction(), name(out))
        elif builtin == Op.SOFTMAX:
            o = options(op, SoftmaxOptions)
            if o.Beta() != 1.0:
                sys.exit("tflite_to_onnx: softmax beta != 1 not handled")
            nodes.append(helper.make_node("Softmax", [x], [name(out)], axis=-1))
        else:
            sys.exit("tflite_to_onnx: op %d not handled" % builtin)

    # NHWC input of the .tflite file -> NCHW input of the ONNX graph.
    (inp,) = [int(i) for i in sg.InputsAsNumpy()]
    (outp,) = [int(i) for i in sg.OutputsAsNumpy()]
    n, h, w, c = shape(inp)
    graph_input = helper.make_tensor_value_info(name(inp), TensorProto.FLOAT, [n, c, h, w])
    graph_output = helper.make_tensor_value_info(name(outp), TensorProto.FLOAT, shape(outp))
    graph = helper.make_graph(nodes, "edgerun_synth_twin", [graph_input], [graph_output], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="edgerun bench/tflite_to_onnx.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, out_path)
    print("wrote %s (%d nodes)" % (out_path, len(nodes)))


if __name__ == "__main__":
    main()
