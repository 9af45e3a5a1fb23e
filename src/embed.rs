//! Embedding strings as vectors over the shared base (paper section 6).
//! (being written)

/// A batch of vectors as one contiguous row-major f32 matrix: row r is
/// `data[r*dim .. (r+1)*dim]`; coordinate i belongs to gram i of the shared base.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Vectors {
    pub dim: usize,
    pub data: Vec<f32>,
}

impl Vectors {
    pub fn len(&self) -> usize {
        if self.dim == 0 { 0 } else { self.data.len() / self.dim }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn row(&self, r: usize) -> &[f32] {
        &self.data[r * self.dim..(r + 1) * self.dim]
    }
}
