//! The network of a scenario: a built-in topology from its spec, or a real fabric routed by
//! its forwarding tables.
//!
//! **Key design decision: a fabric is a network like any other.** A [`Network`] is what the
//! `topology` key of a config or sweep file and the `topology` of a report hold: a spec
//! string (`"bft:n=64"`) or a fabric's files (`{ fabric = "is4.ned", routes = "is4.fdbs" }`,
//! [`FabricFiles`]). [`Network::packet_net`] builds the packet engine's network from either:
//! a built-in topology with its shortest paths ([`RouteSource::ShortestPaths`]), a fabric
//! through its traced forwarding-table routes ([`RouteSource::TopologyPaths`]; a fabric is
//! deterministic, one route per pair, so the path policy must be `std`, see
//! [`PacketOptions::resolve`](crate::PacketOptions::resolve)).

use std::fmt;

use fatnet_fabric::{FabricFiles, FabricTopology};
use fatnet_online::packet::{PacketNet, RouteSource};
use fatnet_topology::TopologySpec;
use serde::{Deserialize, Serialize};

use crate::ScenarioError;

/// The network of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum Network {
    /// A built-in topology.
    Topology(TopologySpec),
    /// A real fabric, routed by its forwarding tables.
    Fabric(FabricFiles),
}

impl From<TopologySpec> for Network {
    fn from(spec: TopologySpec) -> Network {
        Network::Topology(spec)
    }
}

impl From<FabricFiles> for Network {
    fn from(files: FabricFiles) -> Network {
        Network::Fabric(files)
    }
}

impl std::str::FromStr for Network {
    type Err = ScenarioError;

    /// A topology spec, or `fabric:PATH[,routes=PATH][,ca_order=PATH][,format=F]` (the keys of
    /// [`FabricFiles`]; paths may not contain commas): the form sweeps and `SPEC` use.
    fn from_str(s: &str) -> Result<Network, Self::Err> {
        let Some(rest) = s.strip_prefix("fabric:") else {
            return Ok(Network::Topology(s.parse()?));
        };
        let bad = |why: String| ScenarioError::FabricSpec {
            spec: s.escape_debug().to_string(),
            why,
        };
        let mut parts = rest.split(',');
        let path = parts.next().unwrap_or_default();
        if path.is_empty() {
            return Err(bad("no topology file after `fabric:`".into()));
        }
        let mut files = FabricFiles::new(path);
        for part in parts {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("`{part}` is not KEY=VALUE")))?;
            if value.is_empty() {
                return Err(bad(format!("`{key}` has no value")));
            }
            match key {
                "routes" if files.routes.is_none() => files.routes = Some(value.into()),
                "ca_order" if files.ca_order.is_none() => files.ca_order = Some(value.into()),
                "format" => files.format = value.parse().map_err(|e| bad(format!("{e}")))?,
                "routes" | "ca_order" => return Err(bad(format!("`{key}` given twice"))),
                _ => {
                    return Err(bad(format!(
                        "unknown key `{key}`: expected routes, ca_order or format"
                    )));
                }
            }
        }
        Ok(Network::Fabric(files))
    }
}

impl fmt::Display for Network {
    /// The spec, or `fabric:PATH` with the side files ([`FabricFiles`]'s `Display`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Network::Topology(spec) => spec.fmt(f),
            Network::Fabric(files) => files.fmt(f),
        }
    }
}

impl Network {
    /// Where the packet engine takes this network's routes from.
    pub fn routes(&self) -> RouteSource {
        match self {
            Network::Topology(_) => RouteSource::ShortestPaths,
            Network::Fabric(_) => RouteSource::TopologyPaths,
        }
    }

    /// The packet engine's network: the topology built from its spec with shortest-path
    /// routes, or the fabric read ([`FabricFiles::load`]), traced ([`FabricTopology::new`])
    /// and routed by its tables.
    ///
    /// # Errors
    ///
    /// [`ScenarioError::Topology`] for a spec that cannot be built, [`ScenarioError::Fabric`]
    /// for a fabric that cannot be read or traced (no tables, a route that does not arrive),
    /// [`ScenarioError::Packet`] for a network the engine refuses (too large).
    pub fn packet_net(&self) -> Result<PacketNet, ScenarioError> {
        let packet = |source| ScenarioError::Packet {
            topology: self.to_string(),
            source,
        };
        match self {
            Network::Topology(spec) => {
                let topology = spec.build().map_err(|source| ScenarioError::Topology {
                    spec: spec.to_string(),
                    source,
                })?;
                PacketNet::new(topology).map_err(packet)
            }
            Network::Fabric(files) => {
                let fabric = |source| ScenarioError::Fabric {
                    fabric: files.to_string(),
                    source: Box::new(source),
                };
                let loaded = files.load().map_err(fabric)?;
                // Before tracing every pair of CAs (time ∝ pairs), as the engine would after.
                let cas = u32::try_from(loaded.fabric.ca_order().len()).unwrap_or(u32::MAX);
                fatnet_online::packet::check_route_pairs(cas).map_err(packet)?;
                let topology = FabricTopology::new(&loaded.fabric).map_err(fabric)?;
                PacketNet::with_routes(topology, RouteSource::TopologyPaths).map_err(packet)
            }
        }
    }
}

impl Serialize for Network {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Network::Topology(spec) => s.collect_str(spec),
            Network::Fabric(files) => files.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Network {
    /// A string is a topology spec (its own parse error on failure), a table a fabric's files.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Network, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Network;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a topology spec such as \"bft:n=64\", or a fabric such as { fabric = \"x.ned\", routes = \"x.fdbs\" }",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Network, E> {
                v.parse().map(Network::Topology).map_err(E::custom)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Network, A::Error> {
                FabricFiles::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(Network::Fabric)
            }
        }
        d.deserialize_any(V)
    }
}
