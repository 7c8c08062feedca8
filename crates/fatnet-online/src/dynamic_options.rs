//! The options of Stamoulis' dynamic routing and multiple broadcasts, by their one name
//! (`fatnet simulate --arrivals/--router/--broadcast`, a `simulator = "dynamic"` sweep).

fatnet_topology::named_options! {
    /// How packets arrive.
    pub enum Arrivals("arrivals") {
        /// Poisson processes in continuous time, exact simulation (thesis §5.1;
        /// [`crate::greedy_cube`]).
        Poisson = "poisson",
        /// Poisson batches at slot boundaries, one transmission per arc per slot (thesis §5.4;
        /// [`crate::slotted_cube`]).
        Slotted = "slotted",
    }
}

fatnet_topology::named_options! {
    /// The routing scheme of dynamic routing.
    pub enum DynamicRouter("router") {
        /// Greedy: canonical paths (increasing dimensions), FIFO arcs (thesis §5.1.3).
        Greedy = "greedy",
        /// The adaptive store-and-forward scheme of §5.5 (slotted, hypercube).
        Adaptive = "adaptive",
    }
}

fatnet_topology::named_options! {
    /// A multiple-broadcast scheme (thesis chapters 6–7).
    pub enum BroadcastScheme("broadcast scheme") {
        /// The efficient direct scheme: each packet along one of its origin's d rotated trees
        /// (§6.3.3), FIFO output queues.
        Direct = "direct",
        /// The indirect scheme: to the root of one of Johnsson and Ho's d disjoint trees, then
        /// broadcast from there under Rules A–E (§7.1.2).
        Indirect = "indirect",
        /// The non-idling indirect scheme (§7.4): one of Johnsson and Ho's trees, undirected,
        /// flooded from the origin, FIFO arcs, no slot classes.
        Nonidling = "nonidling",
        /// One fixed tree per node (§6.3.1): the origin's dimension-order tree, FIFO arcs.
        OneTree = "one-tree",
        /// The periodic scheme P1 (§6.3.2): a multinode broadcast every P slots.
        Periodic = "periodic",
        /// P1's non-idling version with label priority (§6.3.3).
        PeriodicNonidling = "periodic-nonidling",
    }
}
