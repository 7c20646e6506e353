// The werift-off project (jest.config.js): each of its files runs on werift as published, as in a
// process started with VS_WERIFT_SPEEDUPS=0. This is the file's own copy of the environment (jest
// gives each test file one), set before any of its connections is made.
process.env.VS_WERIFT_SPEEDUPS = '0';
