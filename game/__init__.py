"""Ballpit: a 2D physics sandbox. The physics core (geometry, integrators, forces, world, collide, level) never imports pygame."""
