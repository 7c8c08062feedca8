//! Grid expansion: the checked `[params]` and `[zip]` values to the list of grid points.
//!
//! Owns the order of the points, which fixes every task's index and seed: the cross product
//! of the `[params]` keys in alphabetical order (the last key varying fastest), then the
//! `[zip]` index as one more, last, dimension. It does not check values (`check`) or prepare
//! a point to run (`job`).

use std::collections::BTreeMap;

use super::check::Value;

/// The grid: the cross product of `params` (alphabetical keys, last fastest), then the zip
/// index.
pub(super) fn expand(
    params: &BTreeMap<String, Vec<Value>>,
    zip: &BTreeMap<String, Vec<Value>>,
    zip_len: usize,
) -> Vec<BTreeMap<String, Value>> {
    let mut points = vec![BTreeMap::new()];
    for (key, values) in params {
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut p = p.clone();
                    p.insert(key.clone(), v.clone());
                    p
                })
            })
            .collect();
    }
    points
        .into_iter()
        .flat_map(|p| {
            (0..zip_len).map(move |z| {
                let mut p = p.clone();
                for (key, values) in zip {
                    p.insert(key.clone(), values[z].clone());
                }
                p
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::ParamValue;

    #[test]
    fn grid_is_the_cross_product_then_the_zip() {
        let v = |n| Value {
            value: ParamValue::Int(n),
            line: 1,
        };
        let params = BTreeMap::from([
            ("a".to_string(), vec![v(1), v(2)]),
            ("b".to_string(), vec![v(3), v(4), v(5)]),
        ]);
        let zip = BTreeMap::from([
            ("c".to_string(), vec![v(6), v(7)]),
            ("d".to_string(), vec![v(8), v(9)]),
        ]);
        let points = expand(&params, &zip, 2);
        assert_eq!(points.len(), 12);
        let key = |p: &BTreeMap<String, Value>| {
            ["a", "b", "c", "d"].map(|k| match p[k].value {
                ParamValue::Int(n) => n,
                _ => unreachable!(),
            })
        };
        assert_eq!(key(&points[0]), [1, 3, 6, 8]);
        assert_eq!(key(&points[1]), [1, 3, 7, 9]);
        assert_eq!(key(&points[2]), [1, 4, 6, 8]);
        assert_eq!(key(&points[11]), [2, 5, 7, 9]);
    }
}
