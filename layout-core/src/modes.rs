//! Type-level mode access on typed tuples: `get::<I>()`, `append`, `prepend` keep static values
//! static. (Generated impls for arities 1 to 8.)

use crate::Int;
use crate::IntTuple;

/// Mode `I` of a typed tuple (for an integer, mode 0 is the integer itself).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no mode {I}",
    label = "mode index out of range for this tuple"
)]
pub trait Get<const I: usize>: IntTuple {
    /// The type of mode `I`.
    type Out: IntTuple;
    /// Mode `I`.
    fn get(&self) -> Self::Out;
}

/// Append one mode: `(a,b) ++ x = (a,b,x)`; an integer `a` becomes `(a,x)`.
#[diagnostic::on_unimplemented(message = "cannot append a mode to `{Self}` (at most 8 modes)")]
pub trait Append<X: IntTuple>: IntTuple {
    /// The result type.
    type Out: IntTuple;
    /// The tuple with `x` as its new last mode.
    fn append(self, x: X) -> Self::Out;
}

/// Prepend one mode: `x ++ (a,b) = (x,a,b)`; an integer `a` becomes `(x,a)`.
#[diagnostic::on_unimplemented(message = "cannot prepend a mode to `{Self}` (at most 8 modes)")]
pub trait Prepend<X: IntTuple>: IntTuple {
    /// The result type.
    type Out: IntTuple;
    /// The tuple with `x` as its new first mode.
    fn prepend(self, x: X) -> Self::Out;
}

impl<const N: i64> Get<0> for Int<N> {
    type Out = Self;
    #[inline(always)]
    fn get(&self) -> Self {
        *self
    }
}

impl Get<0> for i64 {
    type Out = Self;
    #[inline(always)]
    fn get(&self) -> Self {
        *self
    }
}

impl<const N: i64, X: IntTuple> Append<X> for Int<N> {
    type Out = (Self, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self, x)
    }
}

impl<X: IntTuple> Append<X> for i64 {
    type Out = (Self, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self, x)
    }
}

impl<const N: i64, X: IntTuple> Prepend<X> for Int<N> {
    type Out = (X, Self);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self)
    }
}

impl<X: IntTuple> Prepend<X> for i64 {
    type Out = (X, Self);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self)
    }
}

impl<A: IntTuple> Get<0> for (A,) {
    type Out = A;
    #[inline(always)]
    fn get(&self) -> A {
        self.0
    }
}

impl<A: IntTuple, X: IntTuple> Append<X> for (A,) {
    type Out = (A, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self.0, x)
    }
}

impl<A: IntTuple, X: IntTuple> Prepend<X> for (A,) {
    type Out = (X, A);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self.0)
    }
}

impl<A: IntTuple, B: IntTuple> Get<0> for (A, B) {
    type Out = A;
    #[inline(always)]
    fn get(&self) -> A {
        self.0
    }
}

impl<A: IntTuple, B: IntTuple> Get<1> for (A, B) {
    type Out = B;
    #[inline(always)]
    fn get(&self) -> B {
        self.1
    }
}

impl<A: IntTuple, B: IntTuple, X: IntTuple> Append<X> for (A, B) {
    type Out = (A, B, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self.0, self.1, x)
    }
}

impl<A: IntTuple, B: IntTuple, X: IntTuple> Prepend<X> for (A, B) {
    type Out = (X, A, B);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self.0, self.1)
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple> Get<0> for (A, B, C) {
    type Out = A;
    #[inline(always)]
    fn get(&self) -> A {
        self.0
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple> Get<1> for (A, B, C) {
    type Out = B;
    #[inline(always)]
    fn get(&self) -> B {
        self.1
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple> Get<2> for (A, B, C) {
    type Out = C;
    #[inline(always)]
    fn get(&self) -> C {
        self.2
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, X: IntTuple> Append<X> for (A, B, C) {
    type Out = (A, B, C, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self.0, self.1, self.2, x)
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, X: IntTuple> Prepend<X> for (A, B, C) {
    type Out = (X, A, B, C);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self.0, self.1, self.2)
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple> Get<0> for (A, B, C, D) {
    type Out = A;
    #[inline(always)]
    fn get(&self) -> A {
        self.0
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple> Get<1> for (A, B, C, D) {
    type Out = B;
    #[inline(always)]
    fn get(&self) -> B {
        self.1
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple> Get<2> for (A, B, C, D) {
    type Out = C;
    #[inline(always)]
    fn get(&self) -> C {
        self.2
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple> Get<3> for (A, B, C, D) {
    type Out = D;
    #[inline(always)]
    fn get(&self) -> D {
        self.3
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, X: IntTuple> Append<X> for (A, B, C, D) {
    type Out = (A, B, C, D, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self.0, self.1, self.2, self.3, x)
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, X: IntTuple> Prepend<X> for (A, B, C, D) {
    type Out = (X, A, B, C, D);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self.0, self.1, self.2, self.3)
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple> Get<0> for (A, B, C, D, E) {
    type Out = A;
    #[inline(always)]
    fn get(&self) -> A {
        self.0
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple> Get<1> for (A, B, C, D, E) {
    type Out = B;
    #[inline(always)]
    fn get(&self) -> B {
        self.1
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple> Get<2> for (A, B, C, D, E) {
    type Out = C;
    #[inline(always)]
    fn get(&self) -> C {
        self.2
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple> Get<3> for (A, B, C, D, E) {
    type Out = D;
    #[inline(always)]
    fn get(&self) -> D {
        self.3
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple> Get<4> for (A, B, C, D, E) {
    type Out = E;
    #[inline(always)]
    fn get(&self) -> E {
        self.4
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, X: IntTuple> Append<X>
    for (A, B, C, D, E)
{
    type Out = (A, B, C, D, E, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self.0, self.1, self.2, self.3, self.4, x)
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, X: IntTuple> Prepend<X>
    for (A, B, C, D, E)
{
    type Out = (X, A, B, C, D, E);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self.0, self.1, self.2, self.3, self.4)
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple> Get<0>
    for (A, B, C, D, E, F)
{
    type Out = A;
    #[inline(always)]
    fn get(&self) -> A {
        self.0
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple> Get<1>
    for (A, B, C, D, E, F)
{
    type Out = B;
    #[inline(always)]
    fn get(&self) -> B {
        self.1
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple> Get<2>
    for (A, B, C, D, E, F)
{
    type Out = C;
    #[inline(always)]
    fn get(&self) -> C {
        self.2
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple> Get<3>
    for (A, B, C, D, E, F)
{
    type Out = D;
    #[inline(always)]
    fn get(&self) -> D {
        self.3
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple> Get<4>
    for (A, B, C, D, E, F)
{
    type Out = E;
    #[inline(always)]
    fn get(&self) -> E {
        self.4
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple> Get<5>
    for (A, B, C, D, E, F)
{
    type Out = F;
    #[inline(always)]
    fn get(&self) -> F {
        self.5
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple, X: IntTuple>
    Append<X> for (A, B, C, D, E, F)
{
    type Out = (A, B, C, D, E, F, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self.0, self.1, self.2, self.3, self.4, self.5, x)
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple, X: IntTuple>
    Prepend<X> for (A, B, C, D, E, F)
{
    type Out = (X, A, B, C, D, E, F);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self.0, self.1, self.2, self.3, self.4, self.5)
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple, G: IntTuple>
    Get<0> for (A, B, C, D, E, F, G)
{
    type Out = A;
    #[inline(always)]
    fn get(&self) -> A {
        self.0
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple, G: IntTuple>
    Get<1> for (A, B, C, D, E, F, G)
{
    type Out = B;
    #[inline(always)]
    fn get(&self) -> B {
        self.1
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple, G: IntTuple>
    Get<2> for (A, B, C, D, E, F, G)
{
    type Out = C;
    #[inline(always)]
    fn get(&self) -> C {
        self.2
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple, G: IntTuple>
    Get<3> for (A, B, C, D, E, F, G)
{
    type Out = D;
    #[inline(always)]
    fn get(&self) -> D {
        self.3
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple, G: IntTuple>
    Get<4> for (A, B, C, D, E, F, G)
{
    type Out = E;
    #[inline(always)]
    fn get(&self) -> E {
        self.4
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple, G: IntTuple>
    Get<5> for (A, B, C, D, E, F, G)
{
    type Out = F;
    #[inline(always)]
    fn get(&self) -> F {
        self.5
    }
}

impl<A: IntTuple, B: IntTuple, C: IntTuple, D: IntTuple, E: IntTuple, F: IntTuple, G: IntTuple>
    Get<6> for (A, B, C, D, E, F, G)
{
    type Out = G;
    #[inline(always)]
    fn get(&self) -> G {
        self.6
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    X: IntTuple,
> Append<X> for (A, B, C, D, E, F, G)
{
    type Out = (A, B, C, D, E, F, G, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self.0, self.1, self.2, self.3, self.4, self.5, self.6, x)
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    X: IntTuple,
> Prepend<X> for (A, B, C, D, E, F, G)
{
    type Out = (X, A, B, C, D, E, F, G);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self.0, self.1, self.2, self.3, self.4, self.5, self.6)
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    H: IntTuple,
> Get<0> for (A, B, C, D, E, F, G, H)
{
    type Out = A;
    #[inline(always)]
    fn get(&self) -> A {
        self.0
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    H: IntTuple,
> Get<1> for (A, B, C, D, E, F, G, H)
{
    type Out = B;
    #[inline(always)]
    fn get(&self) -> B {
        self.1
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    H: IntTuple,
> Get<2> for (A, B, C, D, E, F, G, H)
{
    type Out = C;
    #[inline(always)]
    fn get(&self) -> C {
        self.2
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    H: IntTuple,
> Get<3> for (A, B, C, D, E, F, G, H)
{
    type Out = D;
    #[inline(always)]
    fn get(&self) -> D {
        self.3
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    H: IntTuple,
> Get<4> for (A, B, C, D, E, F, G, H)
{
    type Out = E;
    #[inline(always)]
    fn get(&self) -> E {
        self.4
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    H: IntTuple,
> Get<5> for (A, B, C, D, E, F, G, H)
{
    type Out = F;
    #[inline(always)]
    fn get(&self) -> F {
        self.5
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    H: IntTuple,
> Get<6> for (A, B, C, D, E, F, G, H)
{
    type Out = G;
    #[inline(always)]
    fn get(&self) -> G {
        self.6
    }
}

impl<
    A: IntTuple,
    B: IntTuple,
    C: IntTuple,
    D: IntTuple,
    E: IntTuple,
    F: IntTuple,
    G: IntTuple,
    H: IntTuple,
> Get<7> for (A, B, C, D, E, F, G, H)
{
    type Out = H;
    #[inline(always)]
    fn get(&self) -> H {
        self.7
    }
}
