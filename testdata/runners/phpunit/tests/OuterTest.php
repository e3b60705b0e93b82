<?php

declare(strict_types=1);

namespace Outer\Inner;

use PHPUnit\Framework\TestCase;

final class OuterTest extends TestCase
{
    public function testPassesInNamespace(): void
    {
        $this->assertTrue(true);
    }

    public function testFailsInNamespace(): void
    {
        $this->assertSame([1, 3], [1, 2], 'nested comparison');
    }
}
