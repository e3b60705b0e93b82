package prefault

const sysPreadv2 = 286
