// Icon shapes drawn for chgk-overlay (CC0), as SVG path data in a 100×100 box, even-odd fill.

/** The show's owl (same drawing as owl.svg). */
export const OWL =
  "M18 12 L36 27 Q50 21 64 27 L82 12 L80 44 Q90 70 72 88 Q50 102 28 88 Q10 70 20 44 Z " +
  "M36 34 a13 13 0 1 0 0.01 0 Z M36 41 a6 6 0 1 1 -0.01 0 Z " +
  "M64 34 a13 13 0 1 0 0.01 0 Z M64 41 a6 6 0 1 1 -0.01 0 Z " +
  "M50 52 L44.5 60 L50 69 L55.5 60 Z " +
  "M36 74 Q43 80 50 77 Q57 80 64 74 Q57 84 50 82 Q43 84 36 74 Z";

/** A television set: the viewers. */
export const TV =
  "M14 30 H86 A8 8 0 0 1 94 38 V80 A8 8 0 0 1 86 88 H14 A8 8 0 0 1 6 80 V38 A8 8 0 0 1 14 30 Z " +
  "M20 40 H70 V78 H20 Z " +
  "M76 44 a5 5 0 1 0 0.01 0 Z " +
  "M31 6 L35 3 L52 26 L48 28 Z M69 6 L65 3 L48 26 L52 28 Z";

/** Correct / incorrect marks. */
export const CHECK = "M14 52 L26 40 L42 56 L76 20 L88 32 L42 80 Z";
export const CROSS =
  "M22 10 L50 38 L78 10 L90 22 L62 50 L90 78 L78 90 L50 62 L22 90 L10 78 L38 50 L10 22 Z";
