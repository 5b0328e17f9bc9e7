// Parameter declaration helper of the layer contracts. See layer_buffers.h.
#include "layers/layer_buffers.h"

namespace llm0 {

void declare_linear(ParamStore& p, const std::string& name, int out, int in, bool bias) {
  p.declare(name + ".weight", Shape{out, in});
  if (bias) p.declare(name + ".bias", Shape{out});
}

}  // namespace llm0
