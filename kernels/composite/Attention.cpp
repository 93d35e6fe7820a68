// scaled_dot_product_attention as PyTorch's math reference composes it: softmax(q k^T * scale
// + mask) v, with the causal mask (top-left aligned: query i sees keys 0 .. i), a boolean mask
// (true: take part) or an additive one, and dropout of the attention weights. Its gradient
// comes from the operators it calls.
#include <opcore/ops/add.h>
#include <opcore/ops/dropout.h>
#include <opcore/ops/logical_not.h>
#include <opcore/ops/matmul.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/scaled_dot_product_attention_native.h>
#include <opcore/ops/softmax.h>

#include <cmath>
#include <limits>

namespace opcore::native {

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  const bool masked = attn_mask.has_value() && attn_mask->defined();
  OPCORE_CHECK(!(is_causal && masked), "scaled_dot_product_attention: Explicit attn_mask should not be set when "
               "is_causal=True");
  OPCORE_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, "scaled_dot_product_attention: expected "
               "query, key and value of at least 2 dimensions ([..., L, E], [..., S, E], [..., S, Ev]), got ",
               query.sizes(), ", ", key.sizes(), " and ", value.sizes());
  OPCORE_CHECK(dropout_p >= 0 && dropout_p <= 1, "dropout probability has to be between 0 and 1, but got ", dropout_p);
  const double factor = scale.has_value() ? *scale : 1 / std::sqrt(static_cast<double>(query.size(-1)));
  // Scaling the query costs L x E products, the scores L x S.
  Tensor scores = opcore::matmul(opcore::mul(query, factor), key.transpose(-2, -1));
  constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
  if (is_causal) {
    const Tensor visible = opcore::ones({query.size(-2), key.size(-2)}, query.options().dtype(kBool)).tril();
    scores.masked_fill_(opcore::logical_not(visible), kMinusInf);
  } else if (masked) {
    if (attn_mask->scalar_type() == kBool) {
      scores.masked_fill_(opcore::logical_not(*attn_mask), kMinusInf);
    } else {
      scores = opcore::add(scores, *attn_mask);
    }
  }
  Tensor weights = opcore::softmax(scores, -1);
  if (dropout_p > 0) weights = opcore::dropout(weights, dropout_p, true);
  return opcore::matmul(weights, value);
}

}  // namespace opcore::native
