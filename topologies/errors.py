"""The single exception type of the topologies package."""


class TopologyError(ValueError):
    """A user-caused problem with a topology: bad parameters, a bad file, an unroutable graph.

    The message is one sentence naming the culprit, fit to show to the user as is.
    """
