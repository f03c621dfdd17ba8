#!/bin/sh
# The GPU evidence for the language-model examples (issue 21), in one device call:
#   OUT=DIR sh bench/gpu_lm.sh   (build/solar and build/lib/ carried: libcjson, libisl, libgmp)
export LD_LIBRARY_PATH=$PWD/build/lib SOLAR_PYTHON=python3 SOLAR_DEVICE_PATH=$PWD/devices
mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
python3 -c 'import torch; print("torch", torch.__version__)' >> $OUT/gpu.txt 2>&1
timeout 300 python3 bench/soundness.py $OUT/soundness.json embedding cross_entropy moe_layer > $OUT/soundness.log 2>&1
echo "soundness rc=$?" >> $OUT/gpu.txt
for x in embedding cross_entropy; do
  timeout 100 ./build/solar validate --backend cuda examples/$x.air --ref examples/$x.py > $OUT/v_$x.txt 2>&1
  echo "validate $x rc=$?" >> $OUT/gpu.txt
done
timeout 100 ./build/solar validate --backend cuda examples/moe_layer.air --ref examples/moe_layer.py -D T=256 > $OUT/v_moe_layer.txt 2>&1
echo "validate moe_layer T=256 rc=$?" >> $OUT/gpu.txt
cat $OUT/gpu.txt
