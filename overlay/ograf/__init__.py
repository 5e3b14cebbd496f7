"""EBU OGraf v1: graphics in (library), graphics out (export), the Server API."""
