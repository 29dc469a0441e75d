use layout::Layout;

type Scales = Layout![NN<f16>(4, 32)];

fn main() {}
