#!/bin/sh
# solar translate --train (docs/translate.md, "Training steps")
#   run.sh SOLAR ROOT CASE
#   adamw    examples/train/mlp_block.py (bf16 compute, f32 master weights) with AdamW: PASS
#            against autograd and torch.optim.AdamW(foreach=True); the kernels are grouped
#            forward, backward, optimizer; the moments are inout; analyze shows the groups and
#            the memory line
#   none     mlp_softmax.py, no optimizer: the gradients are the outputs, PASS
#   sgd      mlp_softmax.py with SGD: PASS
#   output   loss_output.py with --loss output (the model returns its MSE), SGD: PASS
#   cnn      cnn_resblock.py: convolution, batch norm (training mode) and max pool backward,
#            AdamW: PASS; the stem gets no input gradient (the image does not require grad)
#   sdpa        sdpa_causal.py: causal SDPA, flash attention's forward and backward kernels, PASS;
#               sdpa_mask.py: a boolean mask (it was refused), PASS
#   embedding   embedding.py: the embedding's backward, a scatter through the ids, PASS
#   checkpoint  checkpoint.py: torch.utils.checkpoint's recomputation traced in the backward
#   losses   losses.py with --loss output and AdamW: group norm, cross entropy (nll_loss's
#            backward) and an MSE with reduction sum, PASS
#   amp      amp.py: an MLP under torch.autocast("cuda", bfloat16) with f32 weights and cross
#            entropy: CUDA autocast's casts (bf16 matmuls, f32 norm and softmax), their
#            backward, AdamW on the f32 weights, PASS
#   scalar   models/l2_lm_head_cross_entropy.py: forward returns its loss, --loss sum sums that
#            0-d tensor (its sum kernel had an unmatched brace: not AIR), PASS
#   constant models/l1_scalar_tensor_on_device.py: a scalar tensor made in forward() (make_fx
#            keeps it as a module attribute: it was an internal error, KeyError), PASS
#   bn_eval  models/l1_batchnorm2d_eval.py: batch norm's backward in eval mode (the running
#            statistics; it was refused), PASS
#   hf_model models/hf_llama.py: transformers' Llama with its causal mask (the fused SDPA with
#            a mask); the validation's cotangent shapes come from a CPU run (on meta the rotary
#            embedding's autocast failed: a validation error), PASS
#   activations  activations.py: softplus, hardsigmoid and hardswish backward, PASS
#   frozen   frozen.py: the frozen layer gets no gradient and no gradient kernel, PASS
#   bad      located errors: no floating output, no trainable parameter, an autocast region
#            for the CPU (the bound is a GPU's), checkpoint inside an autocast region, SDPA with dropout
#            (refused: the fused kernels are translated without dropout), cross entropy
#            with class weights (refused at the call), --loss output on a
#            tensor, --optimizer without --train, an unknown optimizer
solar=$1 root=$(cd "$2" && pwd) name=$3
here=$(cd "$(dirname "$0")" && pwd)
: "${SOLAR_PYTHON:?run.sh needs SOLAR_PYTHON}"
"$SOLAR_PYTHON" -c 'import torch' 2>/dev/null || { echo "SKIP: no PyTorch at SOLAR_PYTHON=$SOLAR_PYTHON"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/solar-train-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -qF -- "$2" "$1" || { cat "$1"; fail "expected in $(basename "$1"): '$2'"; }; }
hasnt() { ! grep -qF -- "$2" "$1" || { cat "$1"; fail "not expected in $(basename "$1"): '$2'"; }; }
translate() {   # translate FILE OUT ARGS...: must validate
  f=$1 o=$2; shift 2
  "$solar" translate "$f" -o "$tmp/$o" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; fail "solar translate $*"; }
  cat "$tmp/out"
  has "$tmp/out" "$o: validated: PASS"
}
case $name in
adamw)
  translate "$root/examples/train/mlp_block.py" mlp.air --train --optimizer adamw
  has "$tmp/mlp.air" "kernel addmm [group = forward] {"
  has "$tmp/mlp.air" "kernel linear_backward_mm [group = backward] {"
  has "$tmp/mlp.air" "kernel norm_native_layer_norm_backward [group = backward] {"
  has "$tmp/mlp.air" "inout up_weight_exp_avg_sq[HIDDEN, DIM]: f32;"
  has "$tmp/mlp.air" "out up_weight_grad[HIDDEN, DIM]: f32;"
  has "$tmp/mlp.air" "kernel optimizer_adamw_addcdiv_params [group = optimizer] {"
  "$solar" analyze "$tmp/mlp.air" --device h100-sxm >"$tmp/an" || { cat "$tmp/an"; fail "solar analyze"; }
  cat "$tmp/an"
  has "$tmp/an" "optimizer  8 "
  has "$tmp/an" "Memory: "
  has "$tmp/an" "as written (at kernel"
  echo PASS ;;
none)
  translate "$here/mlp_softmax.py" n.air --train
  has "$tmp/n.air" "out fc2_bias_grad[DOUT]: f32;"
  has "$tmp/n.air" "kernel softmax_backward_data [group = backward] {"
  has "$tmp/n.air" "kernel ln_native_layer_norm_backward_2 [group = backward] {"
  hasnt "$tmp/n.air" "inout"
  echo PASS ;;
sgd)
  translate "$here/mlp_softmax.py" s.air --train --optimizer sgd
  has "$tmp/s.air" "inout fc1_weight[HID, DIN]: f32;"
  has "$tmp/s.air" "kernel optimizer_sgd_add [group = optimizer] {"
  echo PASS ;;
output)
  translate "$here/loss_output.py" o.air --train --loss output --optimizer sgd
  has "$tmp/o.air" "out loss: f32;"
  echo PASS ;;
cnn)
  translate "$here/cnn_resblock.py" c.air --train --optimizer adamw
  has "$tmp/c.air" "kernel block_conv2_conv2d_backward_convolution_backward [math = tf32, group = backward] {"
  has "$tmp/c.air" "kernel block_bn1_native_batch_norm_backward [group = backward] {"
  has "$tmp/c.air" "kernel pool_max_pool2d_with_indices_backward [group = backward] {"
  has "$tmp/c.air" "tmp pool_max_pool2d_with_indices_indices[BATCH, C, "
  hasnt "$tmp/c.air" "stem_conv2d_backward_convolution_backward_3"
  echo PASS ;;
sdpa)
  translate "$here/sdpa_causal.py" a.air --train --optimizer adamw
  has "$tmp/a.air" "kernel sdpa [math = tf32x3, group = forward] {"
  has "$tmp/a.air" "kernel sdpa_backward [math = tf32x3, group = backward] {"
  hasnt "$tmp/a.air" "softmax"
  # bf16 at Llama-like sizes: the backward's five products on the tensor cores, and its bound
  # below the 1.55 ms its f32-counted products gave (flash attention's backward runs faster)
  "$solar" translate "$here/sdpa_bf16.py" --train --no-validate -o "$tmp/b.air" >/dev/null 2>&1 || fail "translate sdpa_bf16"
  "$solar" analyze "$tmp/b.air" --device h100-sxm >"$tmp/an" || fail "analyze sdpa_bf16"
  grep '^sdpa_backward ' "$tmp/an"
  has "$tmp/an" "172 G tensor.bf16"
  grep '^sdpa_backward ' "$tmp/an" | grep -q ' tensor.bf16$' || fail "sdpa_backward not limited by tensor.bf16"
  translate "$here/sdpa_mask.py" m.air --train
  has "$tmp/m.air" "select(to_copy[i2, j3], exp("
  echo PASS ;;
embedding)
  translate "$here/embedding.py" e.air --train --optimizer adamw
  has "$tmp/e.air" "in  ids[B, S]: i64 in 0..VOCAB;"
  has "$tmp/e.air" "emb_weight_grad[ids[j0, j1], j2] += "
  echo PASS ;;
checkpoint)
  translate "$here/checkpoint.py" k.air --train
  # the recomputation: b2's first linear again, after the loss
  has "$tmp/k.air" "kernel b2_fc2_linear_backward_addmm [math = strict, group = backward] {"
  has "$tmp/k.air" "kernel b2_fc2_linear_backward_gelu [group = backward] {"
  echo PASS ;;
losses)
  translate "$here/losses.py" l.air --train --loss output --optimizer adamw
  has "$tmp/l.air" "kernel gn_native_group_norm_backward [group = backward] {"
  has "$tmp/l.air" "kernel gn_native_group_norm_backward_2 [group = backward] {"
  has "$tmp/l.air" "select(labels[i0] == i1, -"
  has "$tmp/l.air" "kernel mse_loss_backward [group = backward] {"
  echo PASS ;;
amp)
  translate "$here/amp.py" amp.air --train --loss output --optimizer adamw
  has "$tmp/amp.air" "tmp up__to_copy_2[HID, DIM]: bf16;"
  has "$tmp/amp.air" "tmp up_addmm[BATCH, HID]: bf16;"
  has "$tmp/amp.air" "kernel up_linear_backward_mm_2 [group = backward] {"
  has "$tmp/amp.air" "inout up_weight_exp_avg[HID, DIM]: f32;"
  # a sum of bf16 in a region: dtype=float32, one kernel reading bf16 (a cast kernel before it
  # was traffic the GPU does not move)
  translate "$here/amp_reduce.py" r.air --train
  has "$tmp/r.air" "    sum_acc += fc_addmm[i0, i1];"
  echo PASS ;;
scalar)
  translate "$root/tests/translate/models/l2_lm_head_cross_entropy.py" s.air --train
  has "$tmp/s.air" "kernel loss_sum [group = forward] {"
  echo PASS ;;
constant)
  translate "$root/tests/translate/models/l1_scalar_tensor_on_device.py" c.air --train
  has "$tmp/c.air" "out logit_scale_grad[1]: f32;"
  echo PASS ;;
bn_eval)
  translate "$root/tests/translate/models/l1_batchnorm2d_eval.py" e.air --train
  has "$tmp/e.air" "bn_invstd[i1] = rsqrt(bn_running_var[i1] + 1.0e-05);"
  echo PASS ;;
hf_model)
  translate "$root/tests/translate/models/hf_llama.py" h.air --train
  has "$tmp/h.air" "kernel model_layers_0_self_attn_sdpa_backward [math = tf32x3, group = backward] {"
  echo PASS ;;
activations)
  translate "$here/activations.py" act.air --train
  has "$tmp/act.air" "kernel softplus_backward [group = backward] {"
  has "$tmp/act.air" "kernel hardswish_backward [group = backward] {"
  echo PASS ;;
frozen)
  translate "$here/frozen.py" f.air --train
  has "$tmp/f.air" "in  frozen_weight[DIM, DIM]: f32;"
  hasnt "$tmp/f.air" "frozen_weight_grad"
  hasnt "$tmp/f.air" "sigmoid_backward"
  echo PASS ;;
bad)
  for args in "bad_no_float.py --train" "bad_all_frozen.py --train" "../errors/autocast_enabled.py --train" "bad_amp_checkpoint.py --train" "bad_sdpa_dropout.py --train" "bad_lstm.py --train" \
              "bad_ce_weight.py --train --loss output" \
              "mlp_softmax.py --train --loss output" "mlp_softmax.py --optimizer sgd" \
              "mlp_softmax.py --train --optimizer adam"; do
    (cd "$here" && "$solar" translate $args -o "$tmp/x.air" --no-validate) >/dev/null 2>>"$tmp/err.raw"
    rc=$?
    [ "$rc" = 1 ] || [ "$rc" = 2 ] || fail "$args: exit $rc, expected 1 or 2"
    echo "$args: exit $rc" >>"$tmp/err.raw"
  done
  grep -v '^usage\|^  \|^Try' "$tmp/err.raw" | sed "s#$here/##g" >"$tmp/err"
  if [ "${SOLAR_BLESS:-0}" = 1 ]; then cp "$tmp/err" "$here/bad.err"; fi
  diff -u "$here/bad.err" "$tmp/err" || fail "bad: stderr differs from bad.err"
  echo PASS ;;
*) fail "unknown case $name" ;;
esac
