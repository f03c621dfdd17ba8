this is not python: {
